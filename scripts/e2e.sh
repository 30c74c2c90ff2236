#!/usr/bin/env bash
# End-to-end tests of the real desktop app: builds ui/ and the app, then drives it under Xvfb with
# WebKitWebDriver and xdotool (ui/e2e/). Screenshots land in ui/test-results/e2e/.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
need_apt "${APP_BUILD_PACKAGES[@]}" "${APP_TEST_PACKAGES[@]}"
build_ui
# The test run's build (scripts/common.sh): shared with the tests, not a second build of the app.
build_for_tests
export E2E_APP_BINARY="$CARGO_TARGET_DIR/debug/scope-weaver-app"
# Writes tiny random-weight model folders for the Settings test (real formats, no download).
export E2E_TINY_MODEL="$CARGO_TARGET_DIR/debug/tiny-model"
# Openbox gives the windows real focus and placement; its rc (an absolute path: openbox resolves
# it later, from another directory) binds no keys, so Alt+Space stays ours.
headless bash -c 'openbox --config-file "$0" & sleep 1; node --test --test-concurrency=1 --test-reporter=spec ui/e2e/*.e2e.mjs' "$ROOT/ui/e2e/openbox-rc.xml" 2>&1 | grep -v -E '^dbus-daemon|Failed to set fd limit|xdg-desktop-portal|pw.conf|RealtimeKit|PipeWire|^$|SpiRegistry|Ignoring invalid max threads'
exit "${PIPESTATUS[0]}"
