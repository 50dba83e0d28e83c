import { PGlite } from '@electric-sql/pglite';
let t=Date.now(); const pg2 = new PGlite('/tmp/pgl2'); await pg2.waitReady; console.log('disk new', Date.now()-t);
await pg2.query('create table if not exists a(x int)'); await pg2.close(); console.log('closed');
t=Date.now(); const pg3 = new PGlite('/tmp/pgl2'); await pg3.waitReady; console.log('disk reopen', Date.now()-t);
await pg3.close();
