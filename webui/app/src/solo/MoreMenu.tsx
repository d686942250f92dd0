import { EllipsisVertical, type LucideIcon } from 'lucide-react';
import type { RefObject } from 'react';
import { Button, Menu, MenuItem, MenuTrigger, Popover } from 'react-aria-components';

export interface MoreItem {
  id: string;
  label: string;
  icon?: LucideIcon;
  onAction: () => void;
  disabled?: boolean;
  testId?: string;
}

// MoreMenu is the play screen's overflow menu (memory, story cards,
// console, settings, export…) on React Aria's MenuTrigger, Menu and
// MenuItem: the ⋮ button opens it upwards from the dock (click, Enter,
// Space or the arrow keys), the arrow keys, Home, End and typing a name
// move between its items, picking one closes it, Escape or a click beside
// it closes it and gives focus back to the button. buttonRef reaches the
// button, for focus to come back to it when what an item opened closes.
export function MoreMenu({
  label,
  items,
  buttonRef,
}: {
  label: string;
  items: MoreItem[];
  buttonRef?: RefObject<HTMLButtonElement | null>;
}) {
  return (
    <span className="more-menu" data-testid="more-menu">
      <MenuTrigger>
        <Button className="tool more-menu-toggle" aria-label={label} ref={buttonRef}>
          <EllipsisVertical aria-hidden="true" size={20} />
        </Button>
        <Popover className="more-menu-popover" placement="top end" offset={5}>
          <Menu className="more-menu-items" aria-label={label}>
            {items.map(({ id, label: name, icon: Icon, onAction, disabled, testId }) => (
              <MenuItem key={id} id={id} textValue={name} onAction={onAction} isDisabled={disabled} data-testid={testId}>
                {Icon && <Icon aria-hidden="true" size={18} />}
                {name}
              </MenuItem>
            ))}
          </Menu>
        </Popover>
      </MenuTrigger>
    </span>
  );
}
