#!/bin/sh
# PreToolUse Bash: a force push is allowed only after the user confirms (JSON output, permissionDecision "ask").
command=$(jq -r '.tool_input.command')
case "$command" in
  *"push --force"*|*"push -f"*)
    printf '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"Force push rewrites shared history: %s"}}\n' "$command"
    ;;
esac
exit 0
