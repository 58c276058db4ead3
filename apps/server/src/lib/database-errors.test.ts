import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from './database-errors.ts';

describe('isDatabaseUnavailable', () => {
  it('recognises a database that is away or refusing connections', () => {
    for (const error of [
      Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      Object.assign(new Error('database "x" is not currently accepting connections'), { code: '55000' }),
      Object.assign(new Error('the database system is starting up'), { code: '57P03' }),
      Object.assign(new Error('connection failure'), { code: '08006' }),
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      new Error('Connection terminated unexpectedly'),
      new Error('timeout exceeded when trying to connect'),
    ]) {
      expect(isDatabaseUnavailable(error), error.message).toBe(true);
    }
  });

  it('leaves query and programming errors alone', () => {
    for (const error of [
      Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505' }),
      Object.assign(new Error('relation "x" does not exist'), { code: '42P01' }),
      new TypeError("Cannot read properties of undefined (reading 'id')"),
      'a string',
      null,
    ]) {
      expect(isDatabaseUnavailable(error)).toBe(false);
    }
  });
});
