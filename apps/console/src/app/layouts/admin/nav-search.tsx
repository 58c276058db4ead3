import { Search, X } from 'lucide-react';
import { useEffect, useId, useRef, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import {
  HEADER_SEARCH_BREAKPOINT,
  SEARCH_COLLAPSE_DELAY,
  SEARCH_NARROW_WIDTH,
} from '../../../lib/constants.ts';
import { navigation, type NavigationItem } from './navigation.ts';

const WIDE_WIDTH = '240px';

/** Console pages whose sidebar title contains the query, ignoring case. */
export function searchPages(query: string, items: NavigationItem[] = navigation): NavigationItem[] {
  const needle = query.trim().toLowerCase();
  if (!needle) return [];
  const found: NavigationItem[] = [];
  const visit = (list: NavigationItem[]) => {
    for (const item of list) {
      if (item.type === 'item' && item.url && item.title.toLowerCase().includes(needle)) found.push(item);
      if (item.children) visit(item.children);
    }
  };
  visit(items);
  return found;
}

/**
 * The header search box. Pressing its button expands it; the close icon shrinks it, and its layout
 * collapses SEARCH_COLLAPSE_DELAY later. `onOpenChange` reports when the box takes up room (open,
 * or still collapsing), so the header can hide its right-hand area below 600 px.
 */
export function NavSearch({ width, onOpenChange }: { width: number; onOpenChange: (open: boolean) => void }) {
  const [expanded, setExpanded] = useState(false);
  const [present, setPresent] = useState(false);
  const [query, setQuery] = useState('');
  const inputRef = useRef<HTMLInputElement>(null);
  const timer = useRef<number | undefined>(undefined);
  const inputId = useId();
  const resultsId = useId();
  const navigate = useNavigate();
  const results = searchPages(query);
  const narrow = width < HEADER_SEARCH_BREAKPOINT;

  useEffect(() => () => window.clearTimeout(timer.current), []);
  useEffect(() => onOpenChange(present), [present, onOpenChange]);

  function open() {
    window.clearTimeout(timer.current);
    setPresent(true);
    setExpanded(true);
    window.requestAnimationFrame(() => inputRef.current?.focus());
  }

  function close() {
    setExpanded(false);
    setQuery('');
    timer.current = window.setTimeout(() => setPresent(false), SEARCH_COLLAPSE_DELAY);
  }

  return (
    <div
      className={`atrium-search${present ? ' is-present' : ''}${expanded ? ' is-open' : ''}`}
      role="search"
    >
      {present ? (
        <form
          className="atrium-search__form"
          onSubmit={(event) => {
            event.preventDefault();
            const first = results[0];
            if (first?.url) {
              close();
              void navigate(first.url);
            }
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
            className="form-control atrium-search__input"
            placeholder="Search . . ."
            value={query}
            onChange={(event) => setQuery(event.target.value)}
            aria-controls={query.trim() ? resultsId : undefined}
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
          {expanded && query.trim() ? (
            <div id={resultsId} className="atrium-search__results card shadow">
              {results.length > 0 ? (
                <ul className="list-unstyled mb-0 py-1" aria-label="Search results">
                  {results.map((item) => {
                    const Icon = item.icon;
                    return (
                      <li key={item.id}>
                        <Link to={item.url ?? '#'} className="atrium-search__result" onClick={() => close()}>
                          {Icon ? <Icon size={16} aria-hidden="true" /> : null}
                          <span className={item.classes}>{item.title}</span>
                        </Link>
                      </li>
                    );
                  })}
                </ul>
              ) : (
                <p className="small text-body-secondary mb-0 px-3 py-2">No pages match “{query.trim()}”.</p>
              )}
            </div>
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
