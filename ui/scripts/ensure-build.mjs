// `npm test` helper: runs `vite build` when ui/dist is missing or older than the sources it is built from.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const UI = fileURLToPath(new URL('..', import.meta.url));
const inputs = ['src', 'bar.html', 'graph.html', 'editor.html', 'settings.html', 'vite.config.js', 'package-lock.json'];

function newest(path) {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  return Math.max(st.mtimeMs, ...readdirSync(path).map((f) => newest(join(path, f))));
}

const built = join(UI, 'dist', 'bar.html');
const stale =
  !existsSync(built) ||
  ['graph.html', 'editor.html', 'settings.html'].some((f) => !existsSync(join(UI, 'dist', f))) ||
  Math.max(...inputs.map((p) => join(UI, p)).filter(existsSync).map(newest)) > statSync(built).mtimeMs;

if (stale) {
  console.log('ui/dist is missing or stale: running vite build');
  const r = spawnSync(process.execPath, [join(UI, 'node_modules', 'vite', 'bin', 'vite.js'), 'build'], { cwd: UI, stdio: 'inherit' });
  process.exit(r.status ?? 1);
} else {
  console.log('ui/dist is up to date');
}
