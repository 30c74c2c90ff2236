//! The windows' IPC contract, generated from the Rust types so the UI never writes it twice: what
//! each command returns, what a run's channel and the app-wide events carry (JSON Schema, by
//! schemars, for serialisation), what a window may send to answer each type of question, and
//! how each kind of change is called and drawn. The files live
//! in `ui/src/generated/`; `engine`'s test `generated_ui_contract_is_current` rewrites them with
//! `UPDATE_EXPECT=1` and fails when they are stale. The UI imports the change kinds; its tests
//! check every fixture against the schema.

use schemars::generate::SchemaSettings;
use serde_json::{Map, Value, json};

use crate::{
    Agent, AppInfo, Message, Notice, RootSummary, Settings, SkillInfo, SkillSaved, SkillSource,
};

/// `{"commands": {name: schema of what it returns}, "channel": …, "event": …, "$defs": …}`.
pub fn ipc_schema() -> Value {
    let mut generator = SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator();
    let mut commands = Map::new();
    let mut command = |name: &str, schema: schemars::Schema| {
        commands.insert(name.to_owned(), schema.to_value());
    };
    command("app_info", generator.subschema_for::<AppInfo>());
    command("agents", generator.subschema_for::<Vec<Agent>>());
    command("set_root", generator.subschema_for::<RootSummary>());
    command(
        "run_request",
        generator.subschema_for::<pipeline::RunReport>(),
    );
    command(
        "history",
        generator.subschema_for::<Vec<audit::RunSummary>>(),
    );
    command(
        "committed_runs",
        generator.subschema_for::<Vec<pipeline::CommittedRun>>(),
    );
    command(
        "undo_run",
        generator.subschema_for::<pipeline::UndoReport>(),
    );
    command(
        "workflow_save",
        generator.subschema_for::<crate::WorkflowSaved>(),
    );
    command(
        "workflow_suggestions",
        generator.subschema_for::<Vec<skills::WorkflowSuggestion>>(),
    );
    command(
        "workflow_matches",
        generator.subschema_for::<Vec<crate::RequestMatch>>(),
    );
    command(
        "watches_list",
        generator.subschema_for::<Vec<crate::Watch>>(),
    );
    command("watch_add", generator.subschema_for::<crate::Watch>());
    command("watch_remove", generator.subschema_for::<bool>());
    command(
        "inbox_list",
        generator.subschema_for::<Vec<crate::InboxItem>>(),
    );
    command(
        "inbox_preview",
        generator.subschema_for::<crate::InboxPreview>(),
    );
    command(
        "skills_describe",
        generator.subschema_for::<Vec<crate::SkillDescribed>>(),
    );
    command(
        "inbox_approve",
        generator.subschema_for::<pipeline::RunReport>(),
    );
    command(
        "pending_recovery",
        generator.subschema_for::<Option<sandbox::RecoveryReport>>(),
    );
    command(
        "finish_recovery",
        generator.subschema_for::<Option<sandbox::RecoveryReport>>(),
    );
    command("graph_view", generator.subschema_for::<sandbox::TreeView>());
    command("skills_list", generator.subschema_for::<Vec<SkillInfo>>());
    command("skill_source", generator.subschema_for::<SkillSource>());
    command(
        "skill_check",
        generator.subschema_for::<Vec<skills::Diagnostic>>(),
    );
    command("skill_save", generator.subschema_for::<SkillSaved>());
    command("skill_create", generator.subschema_for::<SkillSaved>());
    command(
        "skill_search",
        generator.subschema_for::<Vec<retrieval::SkillHit>>(),
    );
    command("settings_get", generator.subschema_for::<Settings>());
    command("settings_set", generator.subschema_for::<Settings>());
    command(
        "model_load_cancel",
        generator.subschema_for::<Option<Settings>>(),
    );
    let channel = generator.subschema_for::<Message>().to_value();
    let event = generator.subschema_for::<Notice>().to_value();
    let error = generator
        .subschema_for::<contracts::ErrorPayload>()
        .to_value();
    let answers = crate::questions::answer_schemas(&mut generator);
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Scope Weaver windows' IPC (generated from the Rust types; do not edit)",
        "commands": commands,
        "channel": channel,
        "event": event,
        "error": error,
        "answers": answers,
        "$defs": generator.take_definitions(true),
    })
}

/// Every kind of change with its words, sigil, icon and emphasis, in display order.
pub fn op_kinds() -> Value {
    json!(sandbox::OP_KINDS)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pretty(v: &Value) -> String {
        serde_json::to_string_pretty(v).expect("json") + "\n"
    }

    #[test]
    fn generated_ui_contract_is_current() {
        expect_test::expect_file!["../../../ui/src/generated/ipc.schema.json"]
            .assert_eq(&pretty(&ipc_schema()));
        expect_test::expect_file!["../../../ui/src/generated/op-kinds.json"]
            .assert_eq(&pretty(&op_kinds()));
    }
}
