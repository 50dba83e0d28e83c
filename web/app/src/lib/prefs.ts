// Display preferences kept in the browser.
import { persisted } from './store';

const prefersLight = typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: light)').matches;
export const theme = persisted<'dark' | 'light'>('sightline.theme', prefersLight ? 'light' : 'dark');
