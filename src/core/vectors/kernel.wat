;; The similarity kernel of kernel.ts in WebAssembly text: the readable reference for the bytes
;; kernelBytes() assembles by hand. Change both together; test/vectors-kernel.test.ts checks that
;; they hold the same instructions. Written one instruction a line (not folded) for that check.
;;
;; A slot is int8 codes (a multiple of 16 bytes, zero-padded) followed by its f32 scale; the query
;; is f32, 16-byte aligned. Codes are only 4-byte aligned (a slot is codes + 4 bytes).
(module
  (import "env" "memory" (memory 1))

  ;; scale(end) * sum of q[i] * code[i], for the codes at byte offsets p..end. Widens 16 codes at
  ;; a time (i8 -> i16 -> i32 -> f32) into four f32x4 accumulators (locals start at zero).
  (func $qdot (export "qdot") (param $q i32) (param $p i32) (param $end i32) (result f32)
    (local $codes v128)
    (local $half v128)
    (local $acc0 v128)
    (local $acc1 v128)
    (local $acc2 v128)
    (local $acc3 v128)
    loop $next16
      local.get $p
      v128.load align=4
      local.tee $codes
      i16x8.extend_low_i8x16_s
      local.set $half
      ;; codes 0-3
      local.get $half
      i32x4.extend_low_i16x8_s
      f32x4.convert_i32x4_s
      local.get $q
      v128.load
      f32x4.mul
      local.get $acc0
      f32x4.add
      local.set $acc0
      ;; codes 4-7
      local.get $half
      i32x4.extend_high_i16x8_s
      f32x4.convert_i32x4_s
      local.get $q
      v128.load offset=16
      f32x4.mul
      local.get $acc1
      f32x4.add
      local.set $acc1
      local.get $codes
      i16x8.extend_high_i8x16_s
      local.set $half
      ;; codes 8-11
      local.get $half
      i32x4.extend_low_i16x8_s
      f32x4.convert_i32x4_s
      local.get $q
      v128.load offset=32
      f32x4.mul
      local.get $acc2
      f32x4.add
      local.set $acc2
      ;; codes 12-15
      local.get $half
      i32x4.extend_high_i16x8_s
      f32x4.convert_i32x4_s
      local.get $q
      v128.load offset=48
      f32x4.mul
      local.get $acc3
      f32x4.add
      local.set $acc3
      ;; q += 16 floats, p += 16 codes; again while p < end
      local.get $q
      i32.const 64
      i32.add
      local.set $q
      local.get $p
      i32.const 16
      i32.add
      local.tee $p
      local.get $end
      i32.lt_u
      br_if $next16
    end
    ;; sum the accumulators, then their lanes, and scale
    local.get $acc0
    local.get $acc1
    f32x4.add
    local.get $acc2
    local.get $acc3
    f32x4.add
    f32x4.add
    local.tee $acc0
    f32x4.extract_lane 0
    local.get $acc0
    f32x4.extract_lane 1
    f32.add
    local.get $acc0
    f32x4.extract_lane 2
    f32.add
    local.get $acc0
    f32x4.extract_lane 3
    f32.add
    local.get $end
    f32.load
    f32.mul
  )

  ;; out[i] = qdot(q, slot i) for `count` slots from byte p, slots codeBytes + 4 apart.
  (func $scan (export "scan") (param $q i32) (param $p i32) (param $count i32) (param $codeBytes i32) (param $out i32)
    block $done
      local.get $count
      i32.eqz
      br_if $done
      loop $next
        ;; p steps to the slot's scale (qdot's end), then past it
        local.get $out
        local.get $q
        local.get $p
        local.get $p
        local.get $codeBytes
        i32.add
        local.tee $p
        call $qdot
        f32.store
        local.get $p
        i32.const 4
        i32.add
        local.set $p
        local.get $out
        i32.const 4
        i32.add
        local.set $out
        local.get $count
        i32.const 1
        i32.sub
        local.tee $count
        br_if $next
      end
    end
  )

  ;; scale(a) * scale(b) * sum of codeA[i] * codeB[i], for the codes of a at byte offsets a..end.
  ;; Stays in integers (i32x4.dot_i16x8_s): exact, since |sum| <= 127^2 * 65536 < 2^31.
  (func $pair (export "pair") (param $a i32) (param $b i32) (param $end i32) (result f32)
    (local $codesA v128)
    (local $codesB v128)
    (local $acc v128)
    loop $next16
      local.get $a
      v128.load align=4
      local.set $codesA
      local.get $b
      v128.load align=4
      local.set $codesB
      ;; codes 0-7
      local.get $codesA
      i16x8.extend_low_i8x16_s
      local.get $codesB
      i16x8.extend_low_i8x16_s
      i32x4.dot_i16x8_s
      local.get $acc
      i32x4.add
      local.set $acc
      ;; codes 8-15
      local.get $codesA
      i16x8.extend_high_i8x16_s
      local.get $codesB
      i16x8.extend_high_i8x16_s
      i32x4.dot_i16x8_s
      local.get $acc
      i32x4.add
      local.set $acc
      ;; b += 16, a += 16; again while a < end
      local.get $b
      i32.const 16
      i32.add
      local.set $b
      local.get $a
      i32.const 16
      i32.add
      local.tee $a
      local.get $end
      i32.lt_u
      br_if $next16
    end
    ;; sum the lanes, then scale by both slots' scales (b now points at its scale)
    local.get $acc
    i32x4.extract_lane 0
    local.get $acc
    i32x4.extract_lane 1
    i32.add
    local.get $acc
    i32x4.extract_lane 2
    i32.add
    local.get $acc
    i32x4.extract_lane 3
    i32.add
    f32.convert_i32_s
    local.get $end
    f32.load
    f32.mul
    local.get $b
    f32.load
    f32.mul
  )
)
