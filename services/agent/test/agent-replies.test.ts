import { AGENT, AppError, EncodedJson, validatedReply } from '@voice/shared';
import { describe, expect, it } from 'vitest';
import { AgentReplies } from '../src/app/agent-replies';
import type { AgentRow } from '../src/db/agent-rows';

const row = (id: string, xmin: string, updatedAt = new Date('2026-11-24T10:00:00Z')) =>
  ({ id, xmin, updated_at: updatedAt }) as AgentRow;

describe('AgentReplies', () => {
  it('answers a row version with the JSON made for it, makes it again for a new version, and keeps at most its capacity', () => {
    const replies = new AgentReplies(2);
    let made = 0;
    const encode = (text: string) => () => {
      made++;
      return new EncodedJson(text);
    };
    expect(replies.of(row('a', '10'), encode('a1')).text).toBe('a1');
    expect(replies.of(row('a', '10'), encode('unused')).text).toBe('a1');
    expect(made).toBe(1);
    // Another transaction wrote the row; and the same xmin with another updated_at is another version too.
    expect(replies.of(row('a', '11'), encode('a2')).text).toBe('a2');
    expect(replies.of(row('a', '11', new Date('2026-11-24T11:00:00Z')), encode('a3')).text).toBe('a3');
    expect(made).toBe(3);
    // 'a' read last, then 'b' and 'c': 'a' is the least recently used and goes.
    replies.of(row('b', '20'), encode('b1'));
    replies.of(row('c', '30'), encode('c1'));
    expect(replies.size).toBe(2);
    expect(replies.of(row('c', '30'), encode('unused')).text).toBe('c1');
    expect(replies.of(row('a', '11', new Date('2026-11-24T11:00:00Z')), encode('a4')).text).toBe('a4');
  });

  it('reads only the version of an agent whose JSON it keeps, and the row once the version moved', async () => {
    const replies = new AgentReplies();
    let stored = row('a', '10');
    let exists = true;
    const counts = { version: 0, row: 0, encode: 0 };
    const reads = {
      version: async () => {
        counts.version++;
        if (!exists) throw new AppError('AGENT_NOT_FOUND');
        return { xmin: stored.xmin, updated_at: stored.updated_at };
      },
      row: async () => {
        counts.row++;
        if (!exists) throw new AppError('AGENT_NOT_FOUND');
        return stored;
      },
      encode: (r: AgentRow) => {
        counts.encode++;
        return new EncodedJson(`json of ${r.xmin}`);
      },
    };
    // Nothing kept: the row is read (no version read first) and encoded.
    expect((await replies.read('a', reads)).text).toBe('json of 10');
    expect(counts).toEqual({ version: 0, row: 1, encode: 1 });
    // Kept and unchanged: the version alone.
    expect((await replies.read('a', reads)).text).toBe('json of 10');
    expect((await replies.read('a', reads)).text).toBe('json of 10');
    expect(counts).toEqual({ version: 2, row: 1, encode: 1 });
    // Written since (any transaction): the version differs, so the row is read and encoded again.
    stored = row('a', '11');
    expect((await replies.read('a', reads)).text).toBe('json of 11');
    expect(counts).toEqual({ version: 3, row: 2, encode: 2 });
    // Gone (or another account's, which the version read does not find): not found, kept or not.
    exists = false;
    await expect(replies.read('a', reads)).rejects.toMatchObject({ code: 'AGENT_NOT_FOUND' });
    expect(counts.row).toBe(2);
  });

  it('keeps nothing when the reply is outside its contract', () => {
    const replies = new AgentReplies();
    expect(() =>
      replies.of(row('a', '10'), () => validatedReply(AGENT.get, { id: 'not an agent' } as never)),
    ).toThrow(/agent\.get reply does not match its contract/);
    expect(replies.size).toBe(0);
  });
});
