import type { CompiledQuery, Kysely } from 'kysely';
import type { Database } from '../schema.ts';

export type PreparedQuery<Row, Args extends unknown[]> = (...args: Args) => Promise<Row[]>;

interface Compilable<Row> {
  compile(): CompiledQuery<Row>;
}

/**
 * A query built and compiled once, then run with fresh arguments. Kysely builds
 * an operation tree and compiles it to SQL on every call, which showed as a
 * steady share of the bearer API's CPU; the hottest reads skip that here.
 * `build` is called once with placeholders standing in for the arguments.
 */
export function prepared<Row, Args extends unknown[]>(
  db: Kysely<Database>,
  build: (...args: Args) => Compilable<Row>,
): PreparedQuery<Row, Args> {
  const placeholders = Array.from({ length: build.length }, (_, index) => `\u0000folio-argument-${index}`);
  const compiled = build(...(placeholders as Args)).compile();
  const argumentAt = compiled.parameters.map((value) => placeholders.indexOf(value as string));
  return async (...args: Args) => {
    const parameters = compiled.parameters.map((value, index) => (argumentAt[index] === -1 ? value : args[argumentAt[index]!]));
    return (await db.executeQuery<Row>({ ...compiled, parameters })).rows;
  };
}
