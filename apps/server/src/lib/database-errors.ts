/** SQLSTATEs that mean "the database cannot be used right now", not "this query is wrong". */
const UNAVAILABLE_SQLSTATES = new Set([
  '57P01', // admin_shutdown: the server or an administrator ended the connection
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: starting up, or not accepting connections
  '53300', // too_many_connections
]);

const UNAVAILABLE_SYSCALL_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
]);

/** node-postgres words these without a code. */
const UNAVAILABLE_MESSAGES = [
  /connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /client has encountered a connection error/i,
  /cannot use a pool after calling end/i,
  // 55000 is a broad SQLSTATE; only this wording of it means the database refuses connections.
  /is not currently accepting connections/i,
];

/**
 * Whether an error comes from a database that cannot be reached or is refusing connections
 * (a restart, a network blip, a full connection table): the request may succeed if tried again,
 * so it is a 503, not a 500.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string') {
    // Class 08: connection exceptions.
    if (code.startsWith('08') && code.length === 5) return true;
    if (UNAVAILABLE_SQLSTATES.has(code) || UNAVAILABLE_SYSCALL_CODES.has(code)) return true;
  }
  return typeof message === 'string' && UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(message));
}
