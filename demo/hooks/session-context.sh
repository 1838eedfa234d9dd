#!/bin/sh
# SessionStart: plain stdout becomes context for the agent.
echo "This project uses npm. Run 'npm test' before you say you are done."
