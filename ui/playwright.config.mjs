// Playwright: headless Debian Chromium against the built ui/dist, served with the app's CSP; Tauri IPC is mocked.
import { defineConfig } from '@playwright/test';

const PORT = 4317;

export default defineConfig({
  testDir: './tests',
  testMatch: '*.spec.mjs',
  reporter: 'list',
  retries: 0,
  workers: 2,
  timeout: 30_000,
  expect: { timeout: 5_000 },
  outputDir: './test-results/artifacts',
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    browserName: 'chromium',
    headless: true,
    colorScheme: 'dark',
    deviceScaleFactor: 1,
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
  webServer: {
    command: 'node tests/support/serve.mjs',
    url: `http://127.0.0.1:${PORT}/bar.html`,
    reuseExistingServer: !process.env.CI,
    timeout: 20_000,
    env: { PORT: String(PORT) },
  },
});
