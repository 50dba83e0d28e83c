// Placeholder while the page is built (issue 8).
import type { PageProps } from '../../pages';

export default function TracesPage(_props: PageProps) {
  return <div class="page-body"><h1>Traces</h1></div>;
}
