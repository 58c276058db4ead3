/**
 * zod compiles a fast parser with `new Function` when it may, and probes once whether it may.
 * Under the console's CSP (script-src 'self', no 'unsafe-eval') the probe is refused, which the
 * browser reports as a CSP violation although zod carries on without it. `jitless` skips the
 * probe; the forms' parsing is too small for the compiled parser to matter. zod reads this
 * global when it loads, so it is set before any page's code (and zod with it) is loaded.
 */
const withZodConfig = globalThis as { __zod_globalConfig?: { jitless?: boolean } };
withZodConfig.__zod_globalConfig = { ...withZodConfig.__zod_globalConfig, jitless: true };
