import { lazy, type ComponentType, type LazyExoticComponent } from 'react';

// LazyComponent is a component whose script is fetched on its first
// render, or earlier by preload.
export type LazyComponent<P> = LazyExoticComponent<ComponentType<P>> & { preload: () => Promise<unknown> };

// lazyComponent makes a LazyComponent: load imports the module, name picks
// the component. Once the module is here (preloaded, or rendered before)
// the component renders at once: React.lazy is handed a thenable that
// resolves synchronously, so nothing suspends and no fallback shows for a
// frame.
export function lazyComponent<M extends Record<string, unknown>, K extends keyof M>(
  load: () => Promise<M>,
  name: K,
): LazyComponent<M[K] extends ComponentType<infer P> ? P : never> {
  type C = ComponentType<M[K] extends ComponentType<infer P> ? P : never>;
  let loading: Promise<M> | undefined;
  let loaded: { default: C } | undefined;
  const preload = () =>
    (loading ??= load().then((m) => {
      loaded = { default: m[name] as C };
      return m;
    }));
  const component = lazy(() => {
    if (loaded) {
      const now = loaded;
      return { then: (resolve: (m: { default: C }) => void) => resolve(now) } as Promise<{ default: C }>;
    }
    return preload().then(() => loaded!);
  });
  return Object.assign(component, { preload });
}

const parts: { preload: () => Promise<unknown> }[] = [];

// lazyPart is a lazyComponent for a part of a page that is not shown at
// first (a dialog, a panel behind a tab): the page's script goes without
// it, and preloadParts can fetch every one.
export function lazyPart<M extends Record<string, unknown>, K extends keyof M>(load: () => Promise<M>, name: K) {
  const c = lazyComponent(load, name);
  parts.push(c);
  return c;
}

// preloadParts loads every lazyPart's script, and those of the parts
// those bring: the unit tests render parts at once, as the app does a
// part it has shown before.
export async function preloadParts() {
  for (let done = 0; done < parts.length; ) {
    const batch = parts.slice(done);
    done = parts.length;
    await Promise.all(batch.map((p) => p.preload()));
  }
}
