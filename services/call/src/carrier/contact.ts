/**
 * What the simulated contact knows about themselves, read from the call's metadata. Campaign calls
 * carry the contact's other columns under `metadata.contact` (docs/api-guide.md, "Campaigns"); single calls
 * put whatever the client likes at the top level, so both places are read.
 */
export interface ContactInfo {
  /** How the contact introduces themselves ("Dana Lee"). */
  fullName: string | null;
  /** How the agent addresses them ("Dana"). */
  firstName: string | null;
  /** Raw metadata values a user may simply confirm when asked for the item of the same name. */
  known: Record<string, unknown>;
}

/** Long enough for real names, short enough that pasted junk does not take over the transcript. */
const MAX_NAME = 60;

function text(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const trimmed = value.replace(/\s+/g, ' ').trim();
  if (trimmed === '') return null;
  return trimmed.length > MAX_NAME ? trimmed.slice(0, MAX_NAME).trim() : trimmed;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function contactFrom(metadata: Record<string, unknown> | null): ContactInfo {
  const top = metadata ?? {};
  const nested = isRecord(top.contact) ? top.contact : {};
  const fullName = text(top.name) ?? text(nested.name);
  const firstName =
    text(top.first_name) ?? text(nested.first_name) ?? (fullName ? (fullName.split(' ')[0] ?? null) : null);
  const lastName = text(top.last_name) ?? text(nested.last_name);
  return {
    fullName: fullName ?? (firstName && lastName ? `${firstName} ${lastName}` : firstName),
    firstName,
    // Top-level keys win over the contact's columns: they were written for this very call.
    known: { ...nested, ...top },
  };
}
