// Placeholder while the page is built (issue 8).
import type { PageProps } from '../../pages';

export default function SettingsPage(_props: PageProps) {
  return <div class="page-body"><h1>Settings</h1></div>;
}
