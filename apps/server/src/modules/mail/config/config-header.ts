/** The first line of every file mail-config writes: the operator's cue not to edit it by hand. */
export const HEADER = '# Written by `npm run atrium -- mail-config`; run it again rather than editing.\n';
