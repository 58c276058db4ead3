import type { LucideIcon } from 'lucide-react';
import { AppWindow, Archive, Bell, Globe, UserRound } from 'lucide-react';
import { routes } from '../../../lib/paths.ts';
import { navigation, secondaryPages, type NavigationItem } from './navigation.ts';

/** A console page the header search can find: its title, where it is, and the words it holds. */
export interface SearchablePage {
  id: string;
  title: string;
  url: string;
  icon: LucideIcon | undefined;
  classes: string | undefined;
  /** What the page shows and lets an admin do, beyond its title. */
  words: string;
}

/** The words of each page's headings and actions, by its URL. */
const PAGE_WORDS: Record<string, string> = {
  [routes.dashboard]: 'home dashboard overview setup checklist seats counts recent activity',
  [routes.organization]:
    'organisation company profile legal name industry size country time zone sign-in policy ' +
    'password rules two-step verification passkeys authenticator security',
  [routes.domains]: 'domains dns records primary domain delete verify txt mx spf dkim dmarc',
  [routes.users]: 'people accounts employees members list suspend reactivate delete reset password export',
  [routes.groups]: 'teams members dashboard administrators admins',
  [routes.dataMigration]: 'import csv google workspace microsoft 365 imap mail migration dry run',
  [routes.mailSettings]: 'mail email aliases catch-all group addresses mailboxes dkim rotation quota',
  [routes.subscriptions]: 'plan billing seats price upgrade downgrade mail plan history',
  [routes.apps]: 'applications installed single sign-on sso openid connect oidc clients secret',
  [routes.activity]: 'audit log history events who changed what',
  [routes.addDomain]: 'new domain add domain',
  [routes.addUser]: 'new user add user create account invite invitation password',
  [routes.profile]:
    'my account my profile own name e-mail email change password sessions sign out passkeys ' +
    'authenticator recovery codes trusted browsers app passwords devices',
  [routes.notifications]: 'alerts messages mark as read',
  [routes.appsCatalog]: 'add app install app catalog new app',
};

/** Secondary pages the search offers (others, such as a domain's verification, need an id). */
const EXTRA: Array<{ url: string; icon: LucideIcon }> = [
  { url: routes.addDomain, icon: Globe },
  { url: routes.addUser, icon: UserRound },
  { url: routes.profile, icon: UserRound },
  { url: routes.notifications, icon: Bell },
  { url: routes.appsCatalog, icon: AppWindow },
];

/** Parts of a page that are what an admin looks for by name, opened at that part (its id). */
const SECTIONS: SearchablePage[] = [
  {
    // Takeout: the "Export everything" card of Data Migration (issue 42 item 10).
    id: 'export-everything',
    title: 'Export everything',
    url: `${routes.dataMigration}#export-everything`,
    icon: Archive,
    classes: undefined,
    words: 'takeout export download archive backup all data',
  },
];

function allPages(items: NavigationItem[] = navigation): SearchablePage[] {
  const pages: SearchablePage[] = [];
  const visit = (list: NavigationItem[]) => {
    for (const item of list) {
      if (item.type === 'item' && item.url) {
        pages.push({
          id: item.id,
          title: item.title,
          url: item.url,
          icon: item.icon,
          classes: item.classes,
          words: PAGE_WORDS[item.url] ?? '',
        });
      }
      if (item.children) visit(item.children);
    }
  };
  visit(items);
  for (const { url, icon } of EXTRA) {
    const page = secondaryPages[url];
    if (page)
      pages.push({ id: url, title: page.title, url, icon, classes: undefined, words: PAGE_WORDS[url] ?? '' });
  }
  pages.push(...SECTIONS);
  return pages;
}

const PAGES = allPages();
/** Words a query may hold that say nothing about a page. */
const FILLER = new Set(['a', 'an', 'the', 'my', 'of', 'to', 'for', 'and']);
const wordsOf = (text: string) =>
  text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);

/**
 * Console pages for the header search: those whose title holds the query, then those where every
 * word of the query starts a word of the title or of what the page holds ("add user" → Add a
 * user; "password" → Profile, Add a user…), ignoring case.
 */
export function searchPages(query: string, pages: SearchablePage[] = PAGES): SearchablePage[] {
  const needle = query.trim().toLowerCase();
  if (!needle) return [];
  const queryWords = wordsOf(needle).filter((w) => !FILLER.has(w));
  const byTitle = pages.filter((p) => p.title.toLowerCase().includes(needle));
  const byWords =
    queryWords.length === 0
      ? []
      : pages.filter((p) => {
          if (byTitle.includes(p)) return false;
          const words = wordsOf(`${p.title} ${p.words}`);
          return queryWords.every((q) => words.some((w) => w.startsWith(q)));
        });
  return [...byTitle, ...byWords];
}
