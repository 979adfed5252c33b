/**
 * Maps the names callers use to the names on the server. A non-empty prefix isolates one
 * deployment (or one test run) from others sharing a NATS server.
 */
export class Naming {
  private readonly subjectPrefix: string;

  constructor(private readonly prefix: string) {
    // The prefix also goes into stream and consumer names, which forbid these characters.
    if (/[\s.*>/\\]/.test(prefix)) {
      throw new Error(`NATS prefix "${prefix}" must not contain whitespace, '.', '*', '>', '/' or '\\'`);
    }
    this.subjectPrefix = prefix ? `${prefix}.` : '';
  }

  subject(subject: string): string {
    return this.subjectPrefix + subject;
  }

  /** Callers always see the subject they published or subscribed to, never the prefix. */
  unprefixSubject(subject: string): string {
    return this.subjectPrefix && subject.startsWith(this.subjectPrefix)
      ? subject.slice(this.subjectPrefix.length)
      : subject;
  }

  stream(name: string): string {
    return this.prefix ? `${this.prefix}_${name}` : name;
  }

  durable(name: string): string {
    return this.prefix ? `${this.prefix}_${name}` : name;
  }
}
