;; A native NDJSON body's lines checked in WebAssembly (issue 12 item 1): how many lines are not blank, when each is one
;; JSON object, as json-scan.ts's walk and native.ts's line split answer it (json-lines.ts runs it; json-lines.test.ts
;; holds the two to each other). The walk is the same RFC 8259 grammar; what is faster is the inside of a string,
;; most of a log line's bytes, read 16 at a time with SIMD: on the bench's lines the JS walk took ~1,450 ns a line on
;; this VM, this ~455 (a JS loop over bytes runs at ~1.5-3.5 ns a byte here, the SIMD search at ~0.1-0.3).
;;
;; The caller copies the bytes into `memory` after the first STACK bytes (the kinds of the open containers), writes a
;; 0 after them (a sentinel: no JSON token may hold a control byte, so every check stops there as it would at the
;; end) and keeps 16 bytes readable past it (a SIMD load may read them; its first match is at or before the sentinel).
;; Helpers are written out where they are called on every token: V8 (node 20) does not inline wasm functions.
(module
  (memory (export "memory") 1)

  ;; Past the closing quote of the string whose opening quote is at $i; -1 if it is not a valid one. Finds the next
  ;; quote, backslash or control byte 16 bytes at a time (the sentinel after the body is a control byte).
  (func $string (param $i i32) (result i32)
    (local $v v128) (local $m i32) (local $c i32) (local $e i32)
    (local.set $i (i32.add (local.get $i) (i32.const 1)))
    (loop $next
      (local.set $v (v128.load align=1 (local.get $i)))
      (local.set $m (i8x16.bitmask (v128.or (v128.or
        (i8x16.eq (local.get $v) (v128.const i8x16 0x22 0x22 0x22 0x22 0x22 0x22 0x22 0x22 0x22 0x22 0x22 0x22 0x22 0x22 0x22 0x22))
        (i8x16.eq (local.get $v) (v128.const i8x16 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c 0x5c)))
        (i8x16.lt_u (local.get $v) (v128.const i8x16 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20 0x20)))))
      (if (i32.eqz (local.get $m)) (then
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br $next)))
      (local.set $i (i32.add (local.get $i) (i32.ctz (local.get $m))))
      (local.set $c (i32.load8_u (local.get $i)))
      (if (i32.eq (local.get $c) (i32.const 0x22)) (then (return (i32.add (local.get $i) (i32.const 1)))))
      (if (i32.lt_u (local.get $c) (i32.const 0x20)) (then (return (i32.const -1))))
      ;; a backslash: \" \\ \/ \b \f \n \r \t or \uXXXX
      (local.set $e (i32.load8_u offset=1 (local.get $i)))
      (if (i32.eq (local.get $e) (i32.const 0x75))
        (then
          (if (i32.eqz (i32.and (i32.and (call $isHex (i32.load8_u offset=2 (local.get $i))) (call $isHex (i32.load8_u offset=3 (local.get $i))))
              (i32.and (call $isHex (i32.load8_u offset=4 (local.get $i))) (call $isHex (i32.load8_u offset=5 (local.get $i))))))
            (then (return (i32.const -1))))
          (local.set $i (i32.add (local.get $i) (i32.const 6))))
        (else
          (if (i32.eqz (i32.or (i32.or (i32.or (i32.eq (local.get $e) (i32.const 0x22)) (i32.eq (local.get $e) (i32.const 0x5c)))
                (i32.or (i32.eq (local.get $e) (i32.const 0x2f)) (i32.eq (local.get $e) (i32.const 0x62))))
              (i32.or (i32.or (i32.eq (local.get $e) (i32.const 0x66)) (i32.eq (local.get $e) (i32.const 0x6e)))
                (i32.or (i32.eq (local.get $e) (i32.const 0x72)) (i32.eq (local.get $e) (i32.const 0x74))))))
            (then (return (i32.const -1))))
          (local.set $i (i32.add (local.get $i) (i32.const 2)))))
      (br $next))
    (i32.const -1))

  (func $isHex (param $c i32) (result i32)
    (i32.or (i32.lt_u (i32.sub (local.get $c) (i32.const 0x30)) (i32.const 10))
      (i32.lt_u (i32.sub (i32.or (local.get $c) (i32.const 0x20)) (i32.const 0x61)) (i32.const 6))))

  (func $digits (param $i i32) (result i32)
    (loop $next
      (if (i32.lt_u (i32.sub (i32.load8_u (local.get $i)) (i32.const 0x30)) (i32.const 10)) (then
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next))))
    (local.get $i))

  ;; Past the number at $i: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?; -1 if none.
  (func $number (param $i i32) (result i32)
    (local $c i32) (local $from i32)
    (if (i32.eq (i32.load8_u (local.get $i)) (i32.const 0x2d)) (then (local.set $i (i32.add (local.get $i) (i32.const 1)))))
    (local.set $c (i32.load8_u (local.get $i)))
    (if (i32.eq (local.get $c) (i32.const 0x30))
      (then (local.set $i (i32.add (local.get $i) (i32.const 1))))
      (else
        (if (i32.ge_u (i32.sub (local.get $c) (i32.const 0x31)) (i32.const 9)) (then (return (i32.const -1))))
        (local.set $i (call $digits (local.get $i)))))
    (if (i32.eq (i32.load8_u (local.get $i)) (i32.const 0x2e)) (then
      (local.set $from (i32.add (local.get $i) (i32.const 1)))
      (local.set $i (call $digits (local.get $from)))
      (if (i32.eq (local.get $i) (local.get $from)) (then (return (i32.const -1))))))
    (if (i32.eq (i32.or (i32.load8_u (local.get $i)) (i32.const 0x20)) (i32.const 0x65)) (then
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (local.set $c (i32.load8_u (local.get $i)))
      (if (i32.or (i32.eq (local.get $c) (i32.const 0x2b)) (i32.eq (local.get $c) (i32.const 0x2d)))
        (then (local.set $i (i32.add (local.get $i) (i32.const 1)))))
      (local.set $from (local.get $i))
      (local.set $i (call $digits (local.get $from)))
      (if (i32.eq (local.get $i) (local.get $from)) (then (return (i32.const -1))))))
    (local.get $i))

  ;; Past the 4 bytes of $word (little-endian) at $i; -1 if they are not there. The bytes are compared one at a time so
  ;; that the sentinel stops the compare before it reads past the body.
  (func $literal (param $i i32) (param $word i32) (result i32)
    (if (i32.ne (i32.load8_u (local.get $i)) (i32.and (local.get $word) (i32.const 0xff))) (then (return (i32.const -1))))
    (if (i32.ne (i32.load8_u offset=1 (local.get $i)) (i32.and (i32.shr_u (local.get $word) (i32.const 8)) (i32.const 0xff))) (then (return (i32.const -1))))
    (if (i32.ne (i32.load8_u offset=2 (local.get $i)) (i32.and (i32.shr_u (local.get $word) (i32.const 16)) (i32.const 0xff))) (then (return (i32.const -1))))
    (if (i32.ne (i32.load8_u offset=3 (local.get $i)) (i32.shr_u (local.get $word) (i32.const 24))) (then (return (i32.const -1))))
    (i32.add (local.get $i) (i32.const 4)))

  ;; Past `"name"`, whitespace, `:` and whitespace at $i; -1 if not there.
  (func $name (param $i i32) (result i32)
    (local $c i32)
    (if (i32.ne (i32.load8_u (local.get $i)) (i32.const 0x22)) (then (return (i32.const -1))))
    (local.set $i (call $string (local.get $i)))
    (if (i32.lt_s (local.get $i) (i32.const 0)) (then (return (i32.const -1))))
    (loop $space
      (local.set $c (i32.load8_u (local.get $i)))
      (if (i32.or (i32.or (i32.eq (local.get $c) (i32.const 0x20)) (i32.eq (local.get $c) (i32.const 0x09))) (i32.eq (local.get $c) (i32.const 0x0d))) (then
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $space))))
    (if (i32.ne (local.get $c) (i32.const 0x3a)) (then (return (i32.const -1))))
    (loop $space
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (local.set $c (i32.load8_u (local.get $i)))
      (br_if $space (i32.or (i32.or (i32.eq (local.get $c) (i32.const 0x20)) (i32.eq (local.get $c) (i32.const 0x09))) (i32.eq (local.get $c) (i32.const 0x0d)))))
    (local.get $i))

  ;; Past the object at $i and the whitespace after it, nested at most $max deep; -1 if it is not one.
  ;; The kinds of the open containers are kept at [0, $max): 1 object, 2 array.
  (func $object (param $i i32) (param $max i32) (result i32)
    (local $c i32) (local $depth i32) (local $kind i32)
    (loop $value
      (local.set $c (i32.load8_u (local.get $i)))
      (block $after
        (if (i32.eq (local.get $c) (i32.const 0x22)) (then
          (local.set $i (call $string (local.get $i)))
          (if (i32.lt_s (local.get $i) (i32.const 0)) (then (return (i32.const -1))))
          (br $after)))
        (if (i32.eq (i32.or (local.get $c) (i32.const 0x20)) (i32.const 0x7b)) (then  ;; `{` or `[`
          (if (i32.ge_u (local.get $depth) (local.get $max)) (then (return (i32.const -1))))
          (local.set $kind (select (i32.const 1) (i32.const 2) (i32.eq (local.get $c) (i32.const 0x7b))))
          (i32.store8 (local.get $depth) (local.get $kind))
          (local.set $depth (i32.add (local.get $depth) (i32.const 1)))
          (loop $space
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (local.set $c (i32.load8_u (local.get $i)))
            (br_if $space (i32.or (i32.or (i32.eq (local.get $c) (i32.const 0x20)) (i32.eq (local.get $c) (i32.const 0x09))) (i32.eq (local.get $c) (i32.const 0x0d)))))
          ;; an empty one: `}` or `]`
          (if (i32.eq (local.get $c) (select (i32.const 0x7d) (i32.const 0x5d) (i32.eq (local.get $kind) (i32.const 1)))) (then
            (local.set $depth (i32.sub (local.get $depth) (i32.const 1)))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $after)))
          (if (i32.eq (local.get $kind) (i32.const 1)) (then
            (local.set $i (call $name (local.get $i)))
            (if (i32.lt_s (local.get $i) (i32.const 0)) (then (return (i32.const -1))))))
          (br $value)))
        (if (i32.or (i32.eq (local.get $c) (i32.const 0x2d)) (i32.lt_u (i32.sub (local.get $c) (i32.const 0x30)) (i32.const 10))) (then
          (local.set $i (call $number (local.get $i)))
          (if (i32.lt_s (local.get $i) (i32.const 0)) (then (return (i32.const -1))))
          (br $after)))
        (if (i32.eq (local.get $c) (i32.const 0x74)) (then
          (local.set $i (call $literal (local.get $i) (i32.const 0x65757274)))  ;; true
          (if (i32.lt_s (local.get $i) (i32.const 0)) (then (return (i32.const -1))))
          (br $after)))
        (if (i32.eq (local.get $c) (i32.const 0x66)) (then
          (local.set $i (call $literal (i32.add (local.get $i) (i32.const 1)) (i32.const 0x65736c61)))  ;; f + alse
          (if (i32.lt_s (local.get $i) (i32.const 0)) (then (return (i32.const -1))))
          (br $after)))
        (if (i32.eq (local.get $c) (i32.const 0x6e)) (then
          (local.set $i (call $literal (local.get $i) (i32.const 0x6c6c756e)))  ;; null
          (if (i32.lt_s (local.get $i) (i32.const 0)) (then (return (i32.const -1))))
          (br $after)))
        (return (i32.const -1)))
      ;; After a value: close what it ends, until a comma opens the next value (or the object is done).
      (loop $close
        (loop $space
          (local.set $c (i32.load8_u (local.get $i)))
          (if (i32.or (i32.or (i32.eq (local.get $c) (i32.const 0x20)) (i32.eq (local.get $c) (i32.const 0x09))) (i32.eq (local.get $c) (i32.const 0x0d))) (then
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $space))))
        (if (i32.eqz (local.get $depth)) (then (return (local.get $i))))
        (local.set $kind (i32.load8_u offset=0 (i32.sub (local.get $depth) (i32.const 1))))
        (if (i32.eq (local.get $c) (i32.const 0x2c)) (then
          (loop $space
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (local.set $c (i32.load8_u (local.get $i)))
            (br_if $space (i32.or (i32.or (i32.eq (local.get $c) (i32.const 0x20)) (i32.eq (local.get $c) (i32.const 0x09))) (i32.eq (local.get $c) (i32.const 0x0d)))))
          (if (i32.eq (local.get $kind) (i32.const 1)) (then
            (local.set $i (call $name (local.get $i)))
            (if (i32.lt_s (local.get $i) (i32.const 0)) (then (return (i32.const -1))))))
          (br $value)))
        (if (i32.ne (local.get $c) (select (i32.const 0x7d) (i32.const 0x5d) (i32.eq (local.get $kind) (i32.const 1))))
          (then (return (i32.const -1))))
        (local.set $depth (i32.sub (local.get $depth) (i32.const 1)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $close)))
    (i32.const -1))

  ;; How many lines of [$start, $stop) are not blank, when each is one JSON object nested at most $max deep; -1 if one
  ;; is not. The byte at $stop must be 0 (a sentinel: no JSON token holds it), with 16 readable bytes after it.
  (func (export "countLines") (param $start i32) (param $stop i32) (param $max i32) (result i32)
    (local $i i32) (local $n i32) (local $c i32)
    (local.set $i (local.get $start))
    (loop $line
      (loop $blank  ;; blank lines and the whitespace before an object
        (local.set $c (i32.load8_u (local.get $i)))
        (if (i32.or (i32.or (i32.eq (local.get $c) (i32.const 0x20)) (i32.eq (local.get $c) (i32.const 0x0a)))
            (i32.or (i32.eq (local.get $c) (i32.const 0x0d)) (i32.eq (local.get $c) (i32.const 0x09)))) (then
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br $blank))))
      (if (i32.ge_u (local.get $i) (local.get $stop)) (then (return (local.get $n))))
      (if (i32.ne (local.get $c) (i32.const 0x7b)) (then (return (i32.const -1))))
      (local.set $i (call $object (local.get $i) (local.get $max)))
      (if (i32.lt_s (local.get $i) (i32.const 0)) (then (return (i32.const -1))))
      (if (i32.lt_u (local.get $i) (local.get $stop)) (then
        (if (i32.ne (i32.load8_u (local.get $i)) (i32.const 0x0a)) (then (return (i32.const -1))))))
      (local.set $n (i32.add (local.get $n) (i32.const 1)))
      (br $line))
    (i32.const -1))
)
