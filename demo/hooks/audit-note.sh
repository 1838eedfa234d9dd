#!/bin/sh
# Every tool call: nothing to decide, just a hook that always succeeds (its run shows up in the outcome and the log).
cat >/dev/null
exit 0
