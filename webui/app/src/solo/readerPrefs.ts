import { useCallback, useState } from 'react';

// The reader's choices of font and text size, remembered in this browser.
export const READER_FONTS = ['serif', 'sans', 'hyperlegible'] as const;
export const READER_SIZES = ['s', 'm', 'l', 'xl'] as const;
export type ReaderFont = (typeof READER_FONTS)[number];
export type ReaderSize = (typeof READER_SIZES)[number];
export interface ReaderPrefs {
  font: ReaderFont;
  size: ReaderSize;
}

export const READER_STORAGE_KEY = 'adventure-table.reader';
export const DEFAULT_READER: ReaderPrefs = { font: 'serif', size: 'm' };

// readPrefs is what the browser remembers, each choice checked (anything
// else, or no storage at all, is the default).
export function readPrefs(): ReaderPrefs {
  try {
    const raw = JSON.parse(window.localStorage.getItem(READER_STORAGE_KEY) ?? '{}') as Partial<Record<string, unknown>>;
    return {
      font: (READER_FONTS as readonly unknown[]).includes(raw.font) ? (raw.font as ReaderFont) : DEFAULT_READER.font,
      size: (READER_SIZES as readonly unknown[]).includes(raw.size) ? (raw.size as ReaderSize) : DEFAULT_READER.size,
    };
  } catch {
    return DEFAULT_READER;
  }
}

// useReaderPrefs is the reader's choices and a setter that remembers them.
export function useReaderPrefs(): [ReaderPrefs, (patch: Partial<ReaderPrefs>) => void] {
  const [prefs, setPrefs] = useState(readPrefs);
  const update = useCallback((patch: Partial<ReaderPrefs>) => {
    setPrefs((p) => {
      const next = { ...p, ...patch };
      try {
        window.localStorage.setItem(READER_STORAGE_KEY, JSON.stringify(next));
      } catch {
        // private mode or a full store: the choice lasts for this page
      }
      return next;
    });
  }, []);
  return [prefs, update];
}
