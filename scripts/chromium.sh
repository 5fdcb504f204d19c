#!/usr/bin/env bash
# Debian's chromium for the reconciliation console's browser test (playwright-core drives
# /usr/bin/chromium; no browser download). Idempotent: does nothing when chromium is there.
set -euo pipefail
command -v chromium >/dev/null || (apt-get update && apt-get install -y chromium)
