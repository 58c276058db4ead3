import { ChevronRight, ExternalLink } from 'lucide-react';
import { useEffect, type ReactNode } from 'react';
import { NavLink, useLocation } from 'react-router';
import { ScrollArea } from '../../../components/scroll-area.tsx';
import { COLLAPSE_TOGGLE, NAV_COLLAPSE_LEAVE, NAV_CONTENT_LEAVE, type MenuRef } from './layout-reducer.ts';
import { useLayout } from './layout-context.tsx';
import type { NavigationItem } from './navigation.ts';

interface NavProps {
  /** Called after an entry is clicked (the drawer closes itself below 992 px). */
  onItemClick: () => void;
  /** The sidebar is narrowed to icons (992 px and wider). */
  collapsed?: boolean;
}

function cx(...names: (string | false | undefined)[]): string {
  return names.filter(Boolean).join(' ');
}

function NavBadge({ badge }: { badge: NavigationItem['badge'] }) {
  if (!badge) return null;
  return (
    <span className={`badge rounded-pill text-bg-${badge.type} ms-auto atrium-nav__badge`}>
      {badge.title}
    </span>
  );
}

function ItemBody({ item, trailing }: { item: NavigationItem; trailing?: ReactNode }) {
  const Icon = item.icon;
  return (
    <>
      <span className="atrium-nav__icon" aria-hidden="true">
        {Icon ? <Icon size={20} strokeWidth={1.85} /> : null}
      </span>
      <span className={cx('atrium-nav__label', item.classes)}>{item.title}</span>
      <NavBadge badge={item.badge} />
      {trailing}
    </>
  );
}

function NavItem({ item, onItemClick }: NavProps & { item: NavigationItem }) {
  const url = item.url ?? '#';
  if (item.external) {
    return (
      <li className="atrium-nav__entry">
        <a
          href={url}
          className="atrium-nav__link"
          target={item.target === false ? undefined : '_blank'}
          rel="noopener noreferrer"
          title={item.title}
          onClick={onItemClick}
        >
          <ItemBody
            item={item}
            trailing={<ExternalLink size={14} className="atrium-nav__ext" aria-hidden="true" />}
          />
        </a>
      </li>
    );
  }
  return (
    <li className="atrium-nav__entry">
      <NavLink
        to={url}
        // Highlighted on the pages under it too (the catalog under Apps, a user under Users).
        end={url === '/'}
        className={({ isActive }) => cx('atrium-nav__link', isActive && 'active')}
        target={item.target ? '_blank' : undefined}
        rel={item.target ? 'noopener noreferrer' : undefined}
        title={item.title}
        onClick={onItemClick}
      >
        <ItemBody item={item} />
      </NavLink>
    </li>
  );
}

/** A nested menu: opens and is highlighted when the current path contains its id. */
function NavCollapse({
  item,
  level,
  onItemClick,
  collapsed = false,
}: NavProps & { item: NavigationItem; level: number }) {
  const { state, dispatch } = useLayout();
  const { pathname } = useLocation();
  const menu: MenuRef = { id: item.id, type: level > 0 ? 'sub' : 'collapse' };
  const inPath = pathname.split('/').includes(item.id);
  const isOpen = state.isOpen.includes(item.id);

  useEffect(() => {
    if (inPath && !state.isTrigger.includes(item.id)) {
      dispatch({ type: COLLAPSE_TOGGLE, menu: { id: item.id, type: level > 0 ? 'sub' : 'collapse' } });
    }
    // Open once when the path enters this menu; the user may close it afterwards.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [inPath, item.id]);

  const listId = `atrium-nav-${item.id}`;
  return (
    <li
      className={cx('atrium-nav__entry atrium-nav__collapse', isOpen && 'is-open', inPath && 'is-active')}
      onMouseLeave={() => {
        // Leaving a nested menu of the collapsed nav closes it.
        if (collapsed && menu.type === 'sub') dispatch({ type: NAV_COLLAPSE_LEAVE, menu });
      }}
    >
      <button
        type="button"
        className={cx('atrium-nav__link', inPath && 'active')}
        aria-expanded={isOpen}
        aria-controls={listId}
        title={item.title}
        onClick={() => dispatch({ type: COLLAPSE_TOGGLE, menu })}
      >
        <ItemBody
          item={item}
          trailing={<ChevronRight size={16} className="atrium-nav__chevron" aria-hidden="true" />}
        />
      </button>
      <ul id={listId} className="atrium-nav__sub" hidden={!isOpen}>
        <NavList
          items={item.children ?? []}
          level={level + 1}
          onItemClick={onItemClick}
          collapsed={collapsed}
        />
      </ul>
    </li>
  );
}

function NavList({
  items,
  level,
  onItemClick,
  collapsed,
}: NavProps & { items: NavigationItem[]; level: number }) {
  return (
    <>
      {items.map((item) => {
        if (item.type === 'collapse')
          return (
            <NavCollapse
              key={item.id}
              item={item}
              level={level}
              onItemClick={onItemClick}
              collapsed={collapsed}
            />
          );
        if (item.type === 'item') return <NavItem key={item.id} item={item} onItemClick={onItemClick} />;
        return null;
      })}
    </>
  );
}

function NavGroup({ group, onItemClick, collapsed }: NavProps & { group: NavigationItem }) {
  return (
    <li className="atrium-nav__group">
      <div className="atrium-nav__caption" id={`atrium-nav-caption-${group.id}`}>
        {group.title}
      </div>
      <ul className="atrium-nav__list" aria-labelledby={`atrium-nav-caption-${group.id}`}>
        <NavList items={group.children ?? []} level={0} onItemClick={onItemClick} collapsed={collapsed} />
      </ul>
    </li>
  );
}

/** The sidebar's navigation, built from the navigation config. */
export function NavContent({ items, onItemClick, collapsed }: NavProps & { items: NavigationItem[] }) {
  const { dispatch } = useLayout();
  return (
    <ScrollArea
      className="atrium-sidebar__scroll"
      aria-label="Sidebar menu"
      role="region"
      onMouseLeave={() => dispatch({ type: NAV_CONTENT_LEAVE })}
    >
      <ul className="atrium-nav">
        {items.map((item) =>
          item.type === 'group' ? (
            <NavGroup key={item.id} group={item} onItemClick={onItemClick} collapsed={collapsed} />
          ) : (
            <NavList key={item.id} items={[item]} level={0} onItemClick={onItemClick} collapsed={collapsed} />
          ),
        )}
      </ul>
    </ScrollArea>
  );
}
