/** A mistake on the command line: cli.ts prints its message alone (no stack) and exits 1. */
export class UsageError extends Error {}
