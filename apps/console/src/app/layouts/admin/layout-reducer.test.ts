import { describe, expect, it } from 'vitest';
import {
  CHANGE_LAYOUT,
  COLLAPSE_MENU,
  COLLAPSE_TOGGLE,
  initialLayoutState,
  layoutReducer,
  NAV_COLLAPSE_LEAVE,
  NAV_CONTENT_LEAVE,
  RESET,
  type LayoutAction,
  type LayoutState,
} from './layout-reducer.ts';

const state = (patch: Partial<LayoutState> = {}): LayoutState => ({ ...initialLayoutState, ...patch });

describe('layoutReducer', () => {
  it('starts vertical, expanded, with nothing open', () => {
    expect(initialLayoutState).toEqual({
      layout: 'vertical',
      collapseMenu: false,
      isOpen: [],
      isTrigger: [],
    });
  });

  it('changes the layout', () => {
    expect(layoutReducer(state(), { type: CHANGE_LAYOUT, layout: 'horizontal' }).layout).toBe('horizontal');
  });

  it('toggles the menu collapse', () => {
    const once = layoutReducer(state(), { type: COLLAPSE_MENU });
    expect(once.collapseMenu).toBe(true);
    expect(layoutReducer(once, { type: COLLAPSE_MENU }).collapseMenu).toBe(false);
  });

  it('adds a sub item to the open lists, then removes it', () => {
    const start = state({ isOpen: ['apps'], isTrigger: ['apps'] });
    const opened = layoutReducer(start, { type: COLLAPSE_TOGGLE, menu: { id: 'mail', type: 'sub' } });
    expect(opened.isOpen).toEqual(['apps', 'mail']);
    expect(opened.isTrigger).toEqual(['apps', 'mail']);
    const closed = layoutReducer(opened, { type: COLLAPSE_TOGGLE, menu: { id: 'mail', type: 'sub' } });
    expect(closed.isOpen).toEqual(['apps']);
    expect(closed.isTrigger).toEqual(['apps']);
  });

  it('replaces the lists with any other item, or empties them when it was open', () => {
    const start = state({ isOpen: ['a', 'b'], isTrigger: ['a', 'b'] });
    const replaced = layoutReducer(start, { type: COLLAPSE_TOGGLE, menu: { id: 'c', type: 'collapse' } });
    expect(replaced.isOpen).toEqual(['c']);
    expect(replaced.isTrigger).toEqual(['c']);
    const emptied = layoutReducer(replaced, { type: COLLAPSE_TOGGLE, menu: { id: 'c', type: 'collapse' } });
    expect(emptied.isOpen).toEqual([]);
    expect(emptied.isTrigger).toEqual([]);
  });

  it('removes a sub item when leaving a collapsed nav, and leaves other types alone', () => {
    const start = state({ isOpen: ['a', 'b'], isTrigger: ['a', 'b'] });
    const left = layoutReducer(start, { type: NAV_COLLAPSE_LEAVE, menu: { id: 'b', type: 'sub' } });
    expect(left.isOpen).toEqual(['a']);
    expect(left.isTrigger).toEqual(['a']);
    const other = layoutReducer(start, { type: NAV_COLLAPSE_LEAVE, menu: { id: 'b', type: 'collapse' } });
    expect(other.isOpen).toEqual(['a', 'b']);
    expect(other.isTrigger).toEqual(['a', 'b']);
  });

  it('keeps the lists when leaving the nav content', () => {
    const start = state({ isOpen: ['a'], isTrigger: ['a'], collapseMenu: true });
    expect(layoutReducer(start, { type: NAV_CONTENT_LEAVE })).toEqual(start);
  });

  it('resets the layout and collapse to their defaults', () => {
    const start = state({ layout: 'horizontal', collapseMenu: true, isOpen: ['a'], isTrigger: ['a'] });
    expect(layoutReducer(start, { type: RESET })).toEqual({
      layout: 'vertical',
      collapseMenu: false,
      isOpen: ['a'],
      isTrigger: ['a'],
    });
  });

  it('does not mutate the previous state', () => {
    const start = state({ isOpen: ['a'], isTrigger: ['a'] });
    const frozen = structuredClone(start);
    layoutReducer(start, { type: COLLAPSE_TOGGLE, menu: { id: 'b', type: 'sub' } });
    expect(start).toEqual(frozen);
  });

  it('throws on an unknown action', () => {
    expect(() => layoutReducer(state(), { type: 'NOPE' } as unknown as LayoutAction)).toThrow(
      /Unknown layout action: NOPE/,
    );
  });
});
