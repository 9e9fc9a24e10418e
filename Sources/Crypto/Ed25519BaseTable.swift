// Ed25519BaseTable.swift — the odd multiples B, 3B, 5B and 7B of the Ed25519 base point B
// (RFC 8032 §5.1) as affine addends for [S]B in verification (Ed25519Point.swift). Computed
// once with python3 integers from B's coordinates and the affine addition law of §5.1.4;
// Ed25519PointTests recomputes every entry from B by the point arithmetic and compares.

/// For (2i + 1)·B = (x, y), i = 0…3: y + x, y − x and 2·d·x·y mod p, each as five 51-bit limbs
/// (canonical, below p), 15 words an entry.
private let baseOddMultiplesLimbs: InlineArray<60, UInt64> = [
  // 1·B
  0x4_93c6_f58c_3b85, 0x0_df71_81c3_25f7, 0x0_f50b_0b3e_4cb7, 0x5_3293_85a4_4c32,
  0x0_7cf9_d3a3_3d4b,
  0x0_3905_d740_913e, 0x0_ba28_17d6_73a2, 0x2_3e28_27f4_e67c, 0x1_33d2_e0c2_1a34,
  0x4_4fd2_f929_8f81,
  0x1_1205_877a_aa68, 0x4_7995_5893_d579, 0x5_0d66_309b_67a0, 0x2_d42d_0dbe_e5ee,
  0x6_f117_b689_f0c6,
  // 3·B
  0x5_b0a8_4cee_9730, 0x6_1d10_c971_55e4, 0x4_059c_c809_6a10, 0x4_7a60_8da8_014f,
  0x7_a164_e1b9_a80f,
  0x1_1fe8_a4fc_d265, 0x7_bcb8_374f_aacc, 0x5_2f5a_f4ef_4d4f, 0x5_3140_98f9_8d10,
  0x2_ab91_5875_55bd,
  0x6_933f_0dd0_d889, 0x4_4386_bb4c_4295, 0x3_cb6d_3162_508c, 0x2_6368_b872_a2c6,
  0x5_a282_6af1_2b9b,
  // 5·B
  0x2_bc44_08a5_bb33, 0x0_78eb_dda0_5442, 0x2_ffb1_1235_4123, 0x3_75ee_8df5_862d,
  0x2_945c_cf14_6e20,
  0x1_82c3_a447_d6ba, 0x2_2964_e536_eff2, 0x1_9282_1f54_0053, 0x2_f9f1_9e78_8e5c,
  0x1_54a7_e73e_b1b5,
  0x3_dbf1_812a_8285, 0x0_fa17_ba3f_9797, 0x6_f69c_b49c_3820, 0x3_4d5a_0db3_858d,
  0x4_3aab_e696_b3bb,
  // 7·B
  0x2_5cd0_944e_a3bf, 0x7_5673_b81a_4d63, 0x1_50b9_25d1_c0d4, 0x1_3f38_d929_4114,
  0x4_61be_a692_83c9,
  0x7_2c9a_aa32_21b1, 0x2_6777_4474_f74d, 0x0_64b0_e9b2_8085, 0x3_f04e_f53b_27c9,
  0x1_d6ed_d5d2_e531,
  0x3_6dc8_01b8_b3a2, 0x0_e0a7_d493_5e30, 0x1_deb7_cecc_0d7d, 0x0_53a9_4e20_dd2c,
  0x7_a9fb_b1c6_a0f9,
]

extension EdwardsAddend {
  /// (2·index + 1)·B, affine, for index 0…3.
  static func baseOddMultiple(_ index: Int) -> EdwardsAddend {
    baseOddMultiplesLimbs.span.withUnsafeBufferPointer { limbs in
      let entry = UnsafeBufferPointer(rebasing: limbs[15 * index..<15 * index + 15])
      return EdwardsAddend(
        affineYPlusX: Curve25519FieldElement(entry[0], entry[1], entry[2], entry[3], entry[4]),
        yMinusX: Curve25519FieldElement(entry[5], entry[6], entry[7], entry[8], entry[9]),
        doubleDXY: Curve25519FieldElement(entry[10], entry[11], entry[12], entry[13], entry[14]))
    }
  }
}
