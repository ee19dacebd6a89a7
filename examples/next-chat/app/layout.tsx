import type { ReactNode } from 'react';

export const metadata = { title: 'context-compression chat' };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body style={{ fontFamily: 'system-ui, sans-serif', margin: 0, background: '#fafafa' }}>{children}</body>
    </html>
  );
}
