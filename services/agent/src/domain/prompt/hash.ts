import { createHash } from 'node:crypto';

/** `sha256:<hex>` of the prompt's UTF-8 bytes, so a call can record exactly which prompt it ran with. */
export function promptHash(prompt: string): string {
  return `sha256:${createHash('sha256').update(prompt, 'utf8').digest('hex')}`;
}
