#!/bin/sh
# UserPromptSubmit: refuse prompts that carry something that looks like a credential.
prompt=$(jq -r '.prompt')
if printf '%s' "$prompt" | grep -Eqi '(password|api[_-]?key|secret)[[:space:]]*[=:]'; then
  echo "Prompt blocked: it seems to contain a credential. Remove it and try again." >&2
  exit 2
fi
exit 0
