import type { SelectedHook } from "../../core/hookDescriptor.js";
import type { ValidEvent } from "../../payload/parsePayload.js";
import { copilotVsCodePayload } from "../../hosts/copilotVsCodePayload.js";

/**
 * The payload text a hook receives: the agent's own text as qhooks got it, or, for a hook its host gives another
 * shape (a Copilot CLI hook under a PascalCase name: VS Code's form), that shape, as the host would have sent it.
 */
export function hookInput(spec: SelectedHook, valid: ValidEvent): string {
  if (spec.kind === "in-process" || spec.payloadForm === undefined) return valid.json;
  return copilotVsCodePayload(valid.json, valid.event);
}
