/**
 * Every constant of the seed spec (section 9), with the seed spec's names and values.
 * Other code imports these; nothing repeats the numbers.
 */

/** Timing constants, in milliseconds. */
export const Timing = {
  SuperFast: 500,
  Fast: 1000,
  SuperMedium: 1500,
  Medium: 2000,
  SuperSlow: 2500,
  Slow: 3000,
  Installation: 5000,
} as const;
export type TimingName = keyof typeof Timing;

export const { SuperFast, Fast, SuperMedium, Medium, SuperSlow, Slow, Installation } = Timing;

/** ReSend 60 (seconds): how long before a code may be sent again. */
export const ReSend = 60;

/** Breakpoint names, widest first. */
export const BREAKPOINT_NAMES = ['xxl', 'xl', 'lg', 'md', 'sm', 'xs'] as const;
export type BreakpointName = (typeof BREAKPOINT_NAMES)[number];

/** Below this width (px) the sidebar is an off-canvas drawer. */
export const SIDEBAR_BREAKPOINT = 992;
/** Between these widths (px, inclusive) the sidebar collapses automatically. */
export const AUTO_COLLAPSE_MIN = 992;
export const AUTO_COLLAPSE_MAX = 1024;
/** Below this width (px) the open search box hides the right-hand header area. */
export const HEADER_SEARCH_BREAKPOINT = 600;
/** Up to and including this width (px) part of the header is hidden. */
export const HEADER_COMPACT_MAX = 575;

/** Width of the open search input on narrow screens. */
export const SEARCH_NARROW_WIDTH = '100px';
/** Delay (ms) after which the closed search box's layout collapses. */
export const SEARCH_COLLAPSE_DELAY = 500;

/** Header logo width (px). */
export const LOGO_WIDTH = 180;

/** Loading bar: animation (ms), trickle interval (ms), minimum and maximum progress while loading. */
export const LOADING_BAR = {
  animationDuration: 200,
  incrementInterval: 800,
  minimum: 0.08,
  maximum: 0.994,
} as const;

/** Scrollbar keyboard step (px) per arrow key. */
export const SCROLLBAR_KEYBOARD_STEP = 30;

/** Avatar defaults: 30 by 30, font size 20, orange background. */
export const AVATAR_DEFAULT = {
  width: 30,
  height: 30,
  fontSize: 20,
  color: 'orange',
} as const;

/** Cookie lifetime: 1 day. */
export const COOKIE_LIFETIME_DAYS = 1;
export const COOKIE_LIFETIME_MS = COOKIE_LIFETIME_DAYS * 24 * 60 * 60 * 1000;

/** The group whose members are admins (seed spec: the admin flag). */
export const ADMIN_GROUP = 'Dashboard';

/** Product name, used in document titles. */
export const PRODUCT_NAME = 'Atrium';
