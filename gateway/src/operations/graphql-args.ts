/** GraphQL arguments as the catalogue's operations take them (REST's snake_case shapes). */
export type Args = Record<string, unknown>;

/** A GraphQL (camelCase) name as the records and operations spell it: `pageSize` is `page_size`. */
export const snake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * A GraphQL input as the operation takes it: keys in snake_case, recursing only into the nested
 * inputs named (never into JSON values such as metadata or contact rows, which are the client's).
 * Null stays null (it means "remove" on update); absent stays absent.
 */
export function snakeKeys(input: unknown, nested: readonly string[] = []): Args {
  const out: Args = {};
  for (const [key, value] of Object.entries((input ?? {}) as Args)) {
    out[snake(key)] = nested.includes(key) && value && typeof value === 'object' ? snakeKeys(value) : value;
  }
  return out;
}

/** Arguments with a value (GraphQL null for an optional filter means "no filter"). */
export function present(args: Args): Args {
  return Object.fromEntries(Object.entries(args).filter(([, v]) => v !== null && v !== undefined));
}

/** The default: the arguments given a value, in snake_case (`pageSize` is `page_size`). */
export const plainArgs = (args: Args): Args => present(snakeKeys(args));

/**
 * An operation's input from its field's arguments when its entry says nothing else: the arguments
 * with a value, in snake_case, with the resource's id as `id`: the parent's for a field of a
 * resource (Agent.promptVersions), else the argument named idArg (`agentId`) or `id`.
 */
export function defaultArgs(idArg: string | undefined, onResource: boolean) {
  return (args: Args, parent?: { id: string }): Args => {
    if (onResource) return { ...plainArgs(args), id: parent?.id };
    if (idArg === undefined) return plainArgs(args);
    const { [idArg]: id, ...rest } = args;
    return present({ ...plainArgs(rest), id });
  };
}
