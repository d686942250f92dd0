import { useRef, type KeyboardEvent, type ReactNode } from 'react';

// The ids of a tab and of its panel, from the row's base id (useId) and the
// tab's own.
export const tabId = (baseId: string, id: string) => `${baseId}-tab-${id}`;
export const panelId = (baseId: string, id: string) => `${baseId}-tabpanel-${id}`;

export interface TabItem<K extends string> {
  id: K;
  label: ReactNode;
  className?: string;
  // disabled: the screen hides this tab; it takes no focus and the keys skip it
  disabled?: boolean;
  describedBy?: string;
}

// TabList is a row of tabs as the ARIA tabs pattern has them: only the
// chosen tab is in the Tab order, the arrow keys choose the next or the
// previous one (wrapping), Home and End the first or the last, and the
// focus follows; a click chooses one. Its panels are the page's, each
// with the id panelId(baseId, tab) and labelled by tabId(baseId, tab).
export function TabList<K extends string>({
  baseId,
  label,
  className,
  items,
  selected,
  onSelect,
}: {
  baseId: string;
  label: string;
  className: string;
  items: readonly TabItem<K>[];
  selected: K;
  onSelect: (tab: K) => void;
}) {
  const ref = useRef<HTMLDivElement>(null);
  const onKeyDown = (e: KeyboardEvent) => {
    const keys = items.filter((x) => !x.disabled).map((x) => x.id);
    const at = keys.indexOf(selected);
    let next: K | undefined;
    if (e.key === 'ArrowRight') next = keys[(at + 1) % keys.length];
    else if (e.key === 'ArrowLeft') next = keys[(at - 1 + keys.length) % keys.length];
    else if (e.key === 'Home') next = keys[0];
    else if (e.key === 'End') next = keys[keys.length - 1];
    if (next === undefined) return;
    e.preventDefault();
    onSelect(next);
    ref.current?.querySelector<HTMLElement>(`#${CSS.escape(tabId(baseId, next))}`)?.focus();
  };
  return (
    <div className={className} role="tablist" aria-orientation="horizontal" aria-label={label} onKeyDown={onKeyDown} ref={ref}>
      {items.map(({ id, label: content, className: tabClass, disabled, describedBy }) => {
        const chosen = selected === id;
        return (
          <div
            key={id}
            id={tabId(baseId, id)}
            className={tabClass}
            role="tab"
            aria-selected={chosen}
            aria-controls={chosen ? panelId(baseId, id) : undefined}
            aria-disabled={disabled || undefined}
            aria-describedby={describedBy}
            tabIndex={disabled ? undefined : chosen ? 0 : -1}
            onClick={() => !disabled && onSelect(id)}
          >
            {content}
          </div>
        );
      })}
    </div>
  );
}
