import type { SearchKind, SearchResults } from '@atrium/contracts/search';
import type { LucideIcon } from 'lucide-react';
import { Globe, LayoutGrid, UserRound, UsersRound } from 'lucide-react';
import { paths } from '../../lib/paths.ts';

export type OptionKind = 'pages' | SearchKind;

/** One entry of the open search list: what it shows and where it leads. */
export interface SearchOption {
  /** Unique in the list; the option element's id is built from it. */
  key: string;
  kind: OptionKind;
  label: string;
  secondary: string | null;
  href: string;
  icon: LucideIcon | undefined;
  /** Extra CSS classes for the label (a page's own, e.g. text-capitalize). */
  classes?: string | undefined;
}

/** The list's groups, in order, with their headings. */
export const OPTION_GROUPS: ReadonlyArray<{ kind: OptionKind; heading: string }> = [
  { kind: 'pages', heading: 'Pages' },
  { kind: 'users', heading: 'Users' },
  { kind: 'groups', heading: 'Groups' },
  { kind: 'domains', heading: 'Domains' },
  { kind: 'apps', heading: 'Apps' },
];

const SERVER_KINDS: Record<SearchKind, { icon: LucideIcon; href: (id: string) => string }> = {
  users: { icon: UserRound, href: paths.userDetail },
  groups: { icon: UsersRound, href: paths.groups },
  domains: { icon: Globe, href: paths.verifyDomain },
  apps: { icon: LayoutGrid, href: paths.appDetail },
};

/** Page matches first, then the server's finds by kind: the order ArrowDown walks. */
export function searchOptions(pages: SearchOption[], results: SearchResults | undefined): SearchOption[] {
  const options = [...pages];
  if (!results) return options;
  for (const { kind } of OPTION_GROUPS) {
    if (kind === 'pages') continue;
    const { icon, href } = SERVER_KINDS[kind];
    for (const hit of results[kind]) {
      options.push({
        key: `${kind}-${hit.id}`,
        kind,
        label: hit.label,
        secondary: hit.secondary,
        href: href(hit.id),
        icon,
      });
    }
  }
  return options;
}
