import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MoreMenu } from '../src/solo/MoreMenu';

afterEach(cleanup);

const focused = () => document.activeElement?.textContent;

function renderMenu() {
  const picked = vi.fn();
  const items = ['Insights', 'Memory', 'Story cards', 'Settings', 'Export'].map((label) => ({
    id: label,
    label,
    disabled: label === 'Settings',
    onAction: () => picked(label),
  }));
  render(
    <div>
      <MoreMenu label="More actions" items={items} />
      <p>beside</p>
    </div>,
  );
  const button = screen.getByRole('button', { name: 'More actions' });
  return { button, picked };
}

describe('the overflow menu', () => {
  it('moves with the arrow keys, Home and End over the enabled items, and wraps', () => {
    const { button } = renderMenu();
    button.focus();
    fireEvent.keyDown(button, { key: 'ArrowDown' });
    expect(button.getAttribute('aria-expanded')).toBe('true');
    expect(button.getAttribute('aria-controls')).toBe(screen.getByRole('menu').id);
    expect(focused()).toBe('Insights');
    const menu = screen.getByRole('menu', { name: 'More actions' });
    fireEvent.keyDown(menu, { key: 'ArrowUp' });
    expect(focused()).toBe('Export');
    fireEvent.keyDown(menu, { key: 'ArrowUp' });
    expect(focused()).toBe('Story cards'); // Settings is disabled: skipped
    fireEvent.keyDown(menu, { key: 'Home' });
    expect(focused()).toBe('Insights');
    fireEvent.keyDown(menu, { key: 'End' });
    expect(focused()).toBe('Export');
    fireEvent.keyDown(menu, { key: 'ArrowDown' });
    expect(focused()).toBe('Insights');
  });

  it('moves to the item whose name is typed', () => {
    const { button } = renderMenu();
    fireEvent.keyDown(button, { key: 'ArrowDown' });
    const menu = screen.getByRole('menu');
    const now = vi.spyOn(Date, 'now').mockReturnValue(1_000_000);
    fireEvent.keyDown(menu, { key: 's' });
    expect(focused()).toBe('Story cards');
    fireEvent.keyDown(menu, { key: 't' }); // "st", typed at once
    expect(focused()).toBe('Story cards');
    fireEvent.keyDown(menu, { key: 'e' }); // "ste" names nothing: the focus stays
    expect(focused()).toBe('Story cards');
    now.mockReturnValue(1_001_000); // a pause: a new name
    fireEvent.keyDown(menu, { key: 'e' });
    expect(focused()).toBe('Export');
  });

  it('Enter picks an item, closes the menu and gives focus back to the button; a disabled item does nothing', () => {
    const { button, picked } = renderMenu();
    fireEvent.click(button);
    fireEvent.click(screen.getByRole('menuitem', { name: 'Settings' }));
    expect(picked).not.toHaveBeenCalled();
    expect(screen.getByRole('menu')).toBeTruthy();
    fireEvent.keyDown(screen.getByRole('menuitem', { name: 'Memory' }), { key: 'Enter' });
    expect(picked).toHaveBeenCalledWith('Memory');
    expect(screen.queryByRole('menu')).toBeNull();
    expect(document.activeElement).toBe(button);
    expect(button.getAttribute('aria-expanded')).toBe('false');
  });

  it('Escape closes back to the button; a press beside it closes it', () => {
    const { button } = renderMenu();
    fireEvent.click(button);
    fireEvent.keyDown(screen.getByRole('menu'), { key: 'Escape' });
    expect(screen.queryByRole('menu')).toBeNull();
    expect(document.activeElement).toBe(button);
    fireEvent.click(button);
    expect(screen.getByRole('menu')).toBeTruthy();
    fireEvent.pointerDown(screen.getByText('beside'));
    expect(screen.queryByRole('menu')).toBeNull();
  });
});
