const STAR = 42;
const GT = 62;

/**
 * NATS subject matching: `*` matches one token, `>` matches one or more trailing tokens.
 * Walks both strings in place: the in-process bus matches every publish against every handler,
 * and splitting both into arrays each time was a visible share of the embedded process's CPU.
 */
export function subjectMatches(pattern: string, subject: string): boolean {
  if (pattern === subject) return true;
  let p = 0;
  let s = 0;
  for (;;) {
    let pEnd = pattern.indexOf('.', p);
    if (pEnd < 0) pEnd = pattern.length;
    let sEnd = subject.indexOf('.', s);
    if (sEnd < 0) sEnd = subject.length;
    const length = pEnd - p;
    const wildcard = length === 1 ? pattern.charCodeAt(p) : 0;
    // The subject has a token here (we stop once it has none), so `>` has its one or more.
    if (wildcard === GT) return true;
    if (wildcard !== STAR) {
      if (sEnd - s !== length) return false;
      for (let k = 0; k < length; k++) {
        if (pattern.charCodeAt(p + k) !== subject.charCodeAt(s + k)) return false;
      }
    }
    const patternDone = pEnd === pattern.length;
    const subjectDone = sEnd === subject.length;
    if (patternDone || subjectDone) return patternDone && subjectDone;
    p = pEnd + 1;
    s = sEnd + 1;
  }
}

/** True when `stream` stores `subject` (one of its subject patterns matches it). */
export function streamStores(stream: { subjects: readonly string[] }, subject: string): boolean {
  return stream.subjects.some((pattern) => subjectMatches(pattern, subject));
}
