// The confirmation dialog, asked for from anywhere: await confirm(...).

import { writable } from 'svelte/store';

export interface ConfirmRequest {
  title: string;
  message: string;
  confirmLabel: string;
  danger: boolean;
  resolve: (ok: boolean) => void;
}

export const confirmRequest = writable<ConfirmRequest | null>(null);

export function confirm(opts: { title: string; message: string; confirmLabel?: string; danger?: boolean }): Promise<boolean> {
  return new Promise((resolve) => {
    confirmRequest.set({
      title: opts.title,
      message: opts.message,
      confirmLabel: opts.confirmLabel ?? 'OK',
      danger: opts.danger ?? false,
      resolve: (ok) => {
        confirmRequest.set(null);
        resolve(ok);
      },
    });
  });
}

/** The console command shown in a browser, where no terminal can be opened. */
export const consoleCommand = writable<{ name: string; command: string; reason?: string } | null>(null);
