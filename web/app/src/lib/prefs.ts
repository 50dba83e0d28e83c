// Display preferences kept in the browser. The theme is put on the root element as soon as it changes, before
// any component re-renders, so charts that read the theme's colours while drawing get the new ones.
import { persisted } from './store';

const prefersLight = typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: light)').matches;
export const theme = persisted<'dark' | 'light'>('sightline.theme', prefersLight ? 'light' : 'dark');

const applyTheme = (mode: 'dark' | 'light') => {
  document.documentElement.dataset.theme = mode;
};
applyTheme(theme.get());
theme.subscribe(applyTheme);
