// The bar's inline "Save as workflow" form: a name field checked like the engine's skill names, Save / Cancel, workflow_save, then the confirmation.
import { api } from '../ipc.js';
import { h, replace, ticked } from '../lib/dom.js';
import { icon } from '../lib/icons.js';
import { nameProblem, triggerToSay, stepsText } from '../lib/workflows.js';

let formCount = 0; // for the field's id (its label and error refer to it)

export class WorkflowForm {
  /**
   * @param {object} o
   * @param {string} o.runId   the committed run to save (workflow_save's `run_id`)
   * @param {string} o.name    the name the field starts with
   * @param {string} o.what    what is saved, in words, for the form's accessible name
   * @param {(saved:object) => void} [o.onSaved]   after workflow_save succeeded (the confirmation is shown)
   * @param {() => void} [o.onCancel]   Cancel or Escape (the form is to be removed)
   */
  constructor({ runId, name, what, onSaved, onCancel }) {
    this.runId = runId;
    this.onSaved = onSaved;
    this.onCancel = onCancel;
    this.busy = false;
    this.saved = null;
    const id = `workflow-name-${++formCount}`;
    this.input = h('input.field.workflow-name', {
      id,
      type: 'text',
      value: name,
      autocomplete: 'off',
      spellcheck: 'false',
      maxlength: '80',
      'aria-describedby': `${id}-error`,
      onInput: () => this.recheck(),
    });
    this.error = h('p.workflow-error', { id: `${id}-error`, role: 'alert' });
    this.submit = h('button.btn.primary.small.workflow-submit', { type: 'submit' }, icon('save'), 'Save');
    this.cancelButton = h('button.btn.ghost.small.workflow-cancel', { type: 'button', onClick: () => this.cancel() }, 'Cancel');
    this.form = h(
      'form.workflow-form',
      {
        'aria-label': `Save as workflow: ${what}`,
        onSubmit: (e) => {
          e.preventDefault();
          this.save();
        },
        onKeydown: (e) => {
          if (e.key !== 'Escape' || e.isComposing) return;
          // Escape closes the form, not the bar.
          e.preventDefault();
          e.stopPropagation();
          this.cancel();
        },
      },
      h('label.workflow-label', { for: id }, 'Workflow name'),
      this.input,
      this.submit,
      this.cancelButton,
      this.error,
    );
    this.el = h('div.workflow-save', this.form);
  }

  /** Puts the focus in the name field, its text selected. */
  focus() {
    if (this.saved) {
      this.el.querySelector('.workflow-saved')?.focus();
      return;
    }
    this.input.focus();
    this.input.select();
  }

  /** Shows a problem with the name (or clears it with null); the engine's `name` quoting shows as code. */
  showError(message) {
    replace(this.error, ticked(message ?? ''));
    this.input.classList.toggle('invalid', Boolean(message));
    this.input.setAttribute('aria-invalid', message ? 'true' : 'false');
  }

  /** While a problem is shown, typing checks the name again. */
  recheck() {
    if (this.error.textContent) this.showError(nameProblem(this.input.value.trim()));
  }

  cancel() {
    if (this.busy) return;
    this.onCancel?.();
  }

  async save() {
    if (this.busy || this.saved) return;
    const name = this.input.value.trim();
    const problem = nameProblem(name);
    if (problem) {
      this.showError(problem);
      this.focus();
      return;
    }
    this.setBusy(true);
    this.showError(null);
    try {
      this.saved = await api.workflowSave(this.runId, name);
    } catch (err) {
      // SKILL_EXISTS, BAD_SKILL_NAME, RUN_BUSY …: the form stays, so another name can be tried.
      this.setBusy(false);
      this.showError(err.message || err.code);
      this.focus();
      return;
    }
    this.setBusy(false);
    replace(this.el, savedNotice(this.saved, name));
    this.onSaved?.(this.saved);
  }

  setBusy(busy) {
    this.busy = busy;
    this.form.setAttribute('aria-busy', busy ? 'true' : 'false');
    this.input.readOnly = busy;
    this.submit.disabled = busy;
    this.cancelButton.disabled = busy;
    replace(this.submit, busy ? h('span.spinner') : icon('save'), 'Save');
  }
}

/** "Saved “tidy”. Say “tidy Inbox” to run it again." and the steps it runs. */
export function savedNotice(saved, name = saved?.name) {
  const say = triggerToSay(saved);
  const steps = stepsText(saved?.steps);
  return h(
    'div.workflow-saved',
    { role: 'status', tabindex: '-1', title: saved?.path ?? '' },
    icon('check'),
    h(
      'div.workflow-saved-body',
      h('p.workflow-saved-text', `Saved “${saved?.name ?? name}”.`, say ? ` Say “${say}” to run it again.` : ''),
      steps ? h('p.workflow-steps', steps) : null,
    ),
  );
}
