import type { FieldValues, Resolver } from 'react-hook-form';
import type { ZodType } from 'zod';

/**
 * A form resolver whose zod schema loads after the form has painted. zod is the biggest library
 * of the sign-in page, and nobody submits a form in the first few hundred milliseconds: the
 * schema (the same one the server checks) is asked for at once but not waited for.
 */
export function lazyZodResolver<Values extends FieldValues>(
  loadSchema: () => Promise<ZodType<Values, Values>>,
): Resolver<Values> {
  let resolver: Promise<Resolver<Values>> | undefined;
  const load = () =>
    (resolver ??= Promise.all([loadSchema(), import('@hookform/resolvers/zod')]).then(
      ([schema, { zodResolver }]) => zodResolver(schema) as Resolver<Values>,
    ));
  void load();
  return async (values, context, options) => (await load())(values, context, options);
}
