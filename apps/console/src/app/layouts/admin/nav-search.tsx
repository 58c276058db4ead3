import { Search, X } from 'lucide-react';
import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import { useNavigate } from 'react-router';
import { useSearchResults } from '../../../features/search/api/search.ts';
import { SearchResults, type SearchStatus } from '../../../features/search/components/search-results.tsx';
import { searchOptions, type SearchOption } from '../../../features/search/search-options.ts';
import {
  HEADER_SEARCH_BREAKPOINT,
  SEARCH_COLLAPSE_DELAY,
  SEARCH_NARROW_WIDTH,
} from '../../../lib/constants.ts';
import { useDebouncedValue } from '../../../lib/use-debounced-value.ts';
import { searchPages } from './search-pages.ts';

const WIDE_WIDTH = '240px';
/** Typing pauses this long (ms) before the server is asked. */
const SEARCH_DEBOUNCE = 250;
function pageOptions(query: string): SearchOption[] {
  return searchPages(query).map((item) => ({
    key: `pages-${item.id}`,
    kind: 'pages',
    label: item.title,
    secondary: null,
    href: item.url,
    icon: item.icon,
    classes: item.classes,
  }));
}

/**
 * The header search box. Pressing its button expands it; the close icon shrinks it, and its layout
 * collapses SEARCH_COLLAPSE_DELAY later. `onOpenChange` reports when the box takes up room (open,
 * or still collapsing), so the header can hide its right-hand area below 600 px. Typing lists
 * matching console pages at once and, after a pause, the organisation's users, groups, domains
 * and apps from the server; ArrowDown/ArrowUp walk every result, Enter opens one, Escape closes.
 */
export function NavSearch({ width, onOpenChange }: { width: number; onOpenChange: (open: boolean) => void }) {
  const [expanded, setExpanded] = useState(false);
  const [present, setPresent] = useState(false);
  const [query, setQuery] = useState('');
  const [activeKey, setActiveKey] = useState<string | null>(null);
  const inputRef = useRef<HTMLInputElement>(null);
  const timer = useRef<number | undefined>(undefined);
  const inputId = useId();
  const resultsId = useId();
  const navigate = useNavigate();
  const narrow = width < HEADER_SEARCH_BREAKPOINT;

  const trimmed = query.trim();
  const settled = useDebouncedValue(expanded ? trimmed : '', SEARCH_DEBOUNCE);
  const found = useSearchResults(settled);
  const options = searchOptions(pageOptions(trimmed), settled ? found.data : undefined);
  const active = options.find((option) => option.key === activeKey);
  const status: SearchStatus =
    settled !== trimmed || found.isFetching
      ? { state: 'searching' }
      : found.error
        ? { state: 'failed', message: found.error.message }
        : { state: 'done' };
  const listOpen = expanded && trimmed.length > 0;
  const optionId = (key: string) => `${resultsId}-${key}`;
  const activeId = listOpen && active ? optionId(active.key) : undefined;

  useEffect(() => () => window.clearTimeout(timer.current), []);
  useEffect(() => onOpenChange(present), [present, onOpenChange]);
  useEffect(() => {
    if (activeId) document.getElementById(activeId)?.scrollIntoView?.({ block: 'nearest' });
  }, [activeId]);

  function open() {
    window.clearTimeout(timer.current);
    setPresent(true);
    setExpanded(true);
    window.requestAnimationFrame(() => inputRef.current?.focus());
  }

  function close() {
    setExpanded(false);
    setQuery('');
    setActiveKey(null);
    timer.current = window.setTimeout(() => setPresent(false), SEARCH_COLLAPSE_DELAY);
  }

  function pick(option: SearchOption | undefined) {
    if (!option) return;
    close();
    void navigate(option.href);
  }

  function onInputKeyDown(event: KeyboardEvent<HTMLInputElement>) {
    if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
    event.preventDefault();
    if (options.length === 0) return;
    const at = active ? options.indexOf(active) : -1;
    const step = event.key === 'ArrowDown' ? 1 : -1;
    const next =
      at === -1 && step === -1 ? options.length - 1 : (at + step + options.length) % options.length;
    setActiveKey(options[next]!.key);
  }

  return (
    <div
      className={`atrium-search${present ? ' is-present' : ''}${expanded ? ' is-open' : ''}`}
      role="search"
      aria-label="Search the console"
    >
      {present ? (
        <form
          className="atrium-search__form"
          onSubmit={(event) => {
            event.preventDefault();
            pick(active ?? options[0]);
          }}
          onKeyDown={(event) => {
            if (event.key === 'Escape') close();
          }}
        >
          <label htmlFor={inputId} className="atrium-search__label" title="Search">
            <Search size={16} aria-hidden="true" />
            <span className="visually-hidden">Search</span>
          </label>
          <input
            ref={inputRef}
            id={inputId}
            type="search"
            role="combobox"
            className="form-control atrium-search__input"
            placeholder="Search . . ."
            value={query}
            maxLength={100}
            onChange={(event) => {
              setQuery(event.target.value);
              setActiveKey(null);
            }}
            onKeyDown={onInputKeyDown}
            aria-expanded={listOpen}
            aria-controls={listOpen ? resultsId : undefined}
            aria-autocomplete="list"
            aria-activedescendant={activeId}
            autoComplete="off"
            style={{ width: expanded ? (narrow ? SEARCH_NARROW_WIDTH : WIDE_WIDTH) : 0 }}
          />
          <button
            type="button"
            className="atrium-icon-btn atrium-search__close"
            aria-label="Close search"
            onClick={close}
          >
            <X size={18} aria-hidden="true" />
          </button>
          {listOpen ? (
            <SearchResults
              id={resultsId}
              query={trimmed}
              options={options}
              activeKey={active?.key ?? null}
              optionId={optionId}
              status={status}
              onPick={close}
            />
          ) : null}
        </form>
      ) : (
        <button type="button" className="atrium-icon-btn" aria-label="Open search" onClick={open}>
          <Search size={20} aria-hidden="true" />
        </button>
      )}
    </div>
  );
}
