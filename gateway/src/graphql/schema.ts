import { makeExecutableSchema } from '@graphql-tools/schema';
import { type GraphQLFieldResolver, type GraphQLSchema, isObjectType } from 'graphql';
import { snake } from '../operations/graphql-args';
import type { GraphQLContext } from './context';
import { describeFromContracts } from './descriptions';
import { isExpected, toGraphQLError } from './errors';
import { operationTypeDefs } from './operation-fields';
import { resolvers } from './resolvers';
import { typeDefs } from './type-defs';

/** Fields without a resolver read the record's snake_case key: `durationSeconds` is `duration_seconds`. */
const recordField: GraphQLFieldResolver<unknown, GraphQLContext> = (source, _args, _ctx, info) =>
  (source as Record<string, unknown> | null)?.[snake(info.fieldName)];

/** Every error a resolver throws leaves it mapped (AppError to its code); bugs are logged, not shown. */
function mapped<S, A>(
  resolve: GraphQLFieldResolver<S, GraphQLContext, A>,
): GraphQLFieldResolver<S, GraphQLContext, A> {
  return async (source, args, ctx, info) => {
    try {
      return await resolve(source, args, ctx, info);
    } catch (error) {
      if (!isExpected(error)) ctx.log.error({ err: error, field: info.fieldName }, 'graphql resolver failed');
      throw toGraphQLError(error);
    }
  };
}

export function buildSchema(): GraphQLSchema {
  const schema = makeExecutableSchema<GraphQLContext>({
    typeDefs: [typeDefs, operationTypeDefs()],
    resolvers,
  });
  describeFromContracts(schema);
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      if (type.name === 'Subscription') {
        if (field.subscribe) field.subscribe = mapped(field.subscribe);
        continue;
      }
      field.resolve = field.resolve ? mapped(field.resolve) : recordField;
    }
  }
  return schema;
}
