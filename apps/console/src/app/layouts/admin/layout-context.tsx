import { createContext, use, useReducer, type Dispatch, type ReactNode } from 'react';
import { initialLayoutState, layoutReducer, type LayoutAction, type LayoutState } from './layout-reducer.ts';

interface LayoutContextValue {
  state: LayoutState;
  dispatch: Dispatch<LayoutAction>;
}

const LayoutContext = createContext<LayoutContextValue | null>(null);

export function LayoutProvider({
  children,
  initialState = initialLayoutState,
}: {
  children: ReactNode;
  initialState?: LayoutState;
}) {
  const [state, dispatch] = useReducer(layoutReducer, initialState);
  return <LayoutContext value={{ state, dispatch }}>{children}</LayoutContext>;
}

export function useLayout(): LayoutContextValue {
  const value = use(LayoutContext);
  if (!value) throw new Error('useLayout must be used inside <LayoutProvider>');
  return value;
}
