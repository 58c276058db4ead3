import { Outlet, useNavigation } from 'react-router';
import { LoadingBar } from '../components/loading-bar.tsx';

/** The root route: the loading bar over whichever layout is showing. */
export function Root() {
  const navigation = useNavigation();
  return (
    <>
      <LoadingBar active={navigation.state !== 'idle'} />
      <Outlet />
    </>
  );
}

export function RootFallback() {
  return <LoadingBar active />;
}
