import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { ConfigError } from '../config.ts';

/** An entry's key in a catalog file: what settings and the database name it by. */
export const catalogKey = () =>
  z
    .string({ message: 'expected a text' })
    .regex(/^[a-z0-9][a-z0-9-]{0,39}$/, 'expected lowercase letters, digits and hyphens (at most 40)');

/** An entry's title in a catalog file, shown to admins. */
export const catalogTitle = (max: number) =>
  z
    .string({ message: 'expected a text' })
    .trim()
    .min(1, 'must not be empty')
    .max(max, `at most ${max} characters`);

/** `apps[2].key` for zod's issue path ['apps', 2, 'key']. */
function fieldName(issuePath: PropertyKey[]): string {
  return issuePath.reduce<string>(
    (out, part) =>
      typeof part === 'number' ? `${out}[${part}]` : out ? `${out}.${String(part)}` : String(part),
    '',
  );
}

/**
 * An operator's catalog file (APP_CATALOG, PLAN_CATALOG): JSON by its extension, YAML otherwise,
 * checked by `schema`, every entry's key once. Whatever is wrong stops start-up with one
 * ConfigError naming the setting, the file and the field.
 */
export function readCatalogFile<S extends z.ZodType<{ includeDefaults: boolean }>>(
  setting: string,
  file: string,
  schema: S,
  entries: (data: z.infer<S>) => { list: string; keys: string[] },
): z.infer<S> {
  const fail = (problem: string) => new ConfigError(setting, `${file}: ${problem}`);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw fail(`cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  let raw: unknown;
  const isJson = path.extname(file).toLowerCase() === '.json';
  try {
    raw = isJson ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw fail(`is not valid ${isJson ? 'JSON' : 'YAML'} (${(error as Error).message.split('\n')[0]})`);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = fieldName(issue.path);
    throw fail(field ? `field ${field}: ${issue.message}` : issue.message);
  }
  const { list, keys } = entries(parsed.data);
  const seen = new Set<string>();
  keys.forEach((key, index) => {
    if (seen.has(key)) throw fail(`field ${list}[${index}].key: "${key}" is listed twice`);
    seen.add(key);
  });
  return parsed.data;
}
