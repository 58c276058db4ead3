/** The layout state of the seed spec, section 4: layout, collapseMenu, isOpen and isTrigger. */

export type LayoutName = 'vertical' | 'horizontal';

export interface LayoutState {
  layout: LayoutName;
  collapseMenu: boolean;
  /** Ids of open menu items. */
  isOpen: string[];
  /** Ids of triggered (highlighted) menu items. */
  isTrigger: string[];
}

/** A menu item as the reducer sees it: `sub` marks a nested collapse. */
export interface MenuRef {
  id: string;
  type: 'sub' | 'collapse' | 'item' | 'group';
}

export const CHANGE_LAYOUT = 'CHANGE_LAYOUT';
export const COLLAPSE_MENU = 'COLLAPSE_MENU';
export const COLLAPSE_TOGGLE = 'COLLAPSE_TOGGLE';
export const NAV_COLLAPSE_LEAVE = 'NAV_COLLAPSE_LEAVE';
export const NAV_CONTENT_LEAVE = 'NAV_CONTENT_LEAVE';
export const RESET = 'RESET';

export type LayoutAction =
  | { type: typeof CHANGE_LAYOUT; layout: LayoutName }
  | { type: typeof COLLAPSE_MENU }
  | { type: typeof COLLAPSE_TOGGLE; menu: MenuRef }
  | { type: typeof NAV_COLLAPSE_LEAVE; menu: MenuRef }
  | { type: typeof NAV_CONTENT_LEAVE }
  | { type: typeof RESET };

export const initialLayoutState: LayoutState = {
  layout: 'vertical',
  collapseMenu: false,
  isOpen: [],
  isTrigger: [],
};

export function layoutReducer(state: LayoutState, action: LayoutAction): LayoutState {
  switch (action.type) {
    case CHANGE_LAYOUT:
      return { ...state, layout: action.layout };

    case COLLAPSE_MENU:
      return { ...state, collapseMenu: !state.collapseMenu };

    case COLLAPSE_TOGGLE: {
      const { id, type } = action.menu;
      if (type === 'sub') {
        // A nested menu is added to, or removed from, the open lists.
        if (state.isTrigger.includes(id)) {
          return {
            ...state,
            isOpen: state.isOpen.filter((item) => item !== id),
            isTrigger: state.isTrigger.filter((item) => item !== id),
          };
        }
        return { ...state, isOpen: [...state.isOpen, id], isTrigger: [...state.isTrigger, id] };
      }
      // Any other type replaces the lists with just itself, or empties them.
      const wasTriggered = state.isTrigger.includes(id);
      return { ...state, isOpen: wasTriggered ? [] : [id], isTrigger: wasTriggered ? [] : [id] };
    }

    case NAV_COLLAPSE_LEAVE: {
      const { id, type } = action.menu;
      if (type !== 'sub' || !state.isTrigger.includes(id)) return { ...state };
      return {
        ...state,
        isOpen: state.isOpen.filter((item) => item !== id),
        isTrigger: state.isTrigger.filter((item) => item !== id),
      };
    }

    case NAV_CONTENT_LEAVE:
      return { ...state, isOpen: [...state.isOpen], isTrigger: [...state.isTrigger] };

    case RESET:
      return { ...state, layout: initialLayoutState.layout, collapseMenu: initialLayoutState.collapseMenu };

    default: {
      const unknown: { type?: unknown } = action;
      throw new Error(`Unknown layout action: ${String(unknown.type)}`);
    }
  }
}
