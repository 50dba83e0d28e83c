// rrweb's Replayer and its CSS, loaded only when a session is opened (DESIGN §7 Speed: the player is the
// heaviest code in the app, so it stays out of every other page's chunk and out of the session list's first load).
import 'rrweb/dist/style.css';

export { Replayer } from 'rrweb';
