import XCTest

@testable import Crypto

/// The [P-384,SHA-384] section of NIST CAVP's FIPS 186-4 ECDSA SigVer.rsp (see
/// ECDSACAVPTests).
extension ECDSACAVPTests {
  func testP384SHA384() {
    check(
      .p384,
      [
        CAVPVector(
          message: """
            4132833a525aecc8a1a6dea9f4075f44feefce810c4668423b38580417f7bdca
            5b21061a45eaa3cbe2a7035ed189523af8002d65c2899e65735e4d93a16503c1
            45059f365c32b3acc6270e29a09131299181c98b3c76769a18faf21f6b4a8f27
            1e6bf908e238afe8002e27c63417bda758f846e1e3b8e62d7f05ebd98f1f9154
            """,
          publicKey: """
            1f94eb6f439a3806f8054dd79124847d138d14d4f52bac93
            b042f2ee3cdb7dc9e09925c2a5fee70d4ce08c61e3b19160
            1c4fd111f6e33303069421deb31e873126be35eeb436fe20
            34856a3ed1e897f26c846ee3233cd16240989a7990c19d8c
            """,
          signature: """
            3c15c3cedf2a6fbff2f906e661f5932f2542f0ce68e2a818
            2e5ed3858f33bd3c5666f17ac39e52cb004b80a0d4ba73cd
            9de879083cbb0a97973c94f1963d84f581e4c6541b7d000f
            9850deb25154b23a37dd72267bdd72665cc7027f88164fab
            """,
          result: "F (2 - R changed)"),
        CAVPVector(
          message: """
            9dd789ea25c04745d57a381f22de01fb0abd3c72dbdefd44e43213c189583eef
            85ba662044da3de2dd8670e6325154480155bbeebb702c75781ac32e13941860
            cb576fe37a05b757da5b5b418f6dd7c30b042e40f4395a342ae4dce05634c336
            25e2bc524345481f7e253d9551266823771b251705b4a85166022a37ac28f1bd
            """,
          publicKey: """
            cb908b1fd516a57b8ee1e14383579b33cb154fece20c5035
            e2b3765195d1951d75bd78fb23e00fef37d7d064fd9af144
            cd99c46b5857401ddcff2cf7cf822121faf1cbad9a011bed
            8c551f6f59b2c360f79bfbe32adbcaa09583bdfdf7c374bb
            """,
          signature: """
            33f64fb65cd6a8918523f23aea0bbcf56bba1daca7aff817
            c8791dc92428d605ac629de2e847d43cee55ba9e4a0e83ba
            4428bb478a43ac73ecd6de51ddf7c28ff3c2441625a08171
            4337dd44fea8011bae71959a10947b6ea33f77e128d3c6ae
            """,
          result: "P (0 )"),
        CAVPVector(
          message: """
            9c4479977ed377e75f5cc047edfa689ef232799513a2e70280e9b124b6c8d166
            e107f5494b406853aec4cff0f2ca00c6f89f0f4a2d4ab0267f44512dfff110d1
            b1b2e5e78832022c14ac06a493ab789e696f7f0f060877029c27157ce40f8125
            8729caa4d9778bae489d3ab0259f673308ae1ec1b1948ad2845f863b36aedffb
            """,
          publicKey: """
            9b3c48d924194146eca4172b6d7d618423682686f43e1dbc
            54ed909053d075ca53b68ae12f0f16a1633d5d9cb17011ec
            695039f837b68e59330ee95d11d5315a8fb5602a7b60c151
            42dbba6e93b5e4aba8ae4469eac39fa6436323eccc60dcb6
            """,
          signature: """
            202da4e4e9632bcb6bf0f6dafb7e348528d0b469d77e46b9
            f939e2fa946a608dd1f166bcbcde96cfad551701da69f6c2
            db595b49983882c48df8a396884cd98893a469c4d590e56c
            6a59b6150d9a0acdf142cf92151052644702ed857a5b7981
            """,
          result: "F (3 - S changed)"),
        CAVPVector(
          message: """
            21eb31f2b34e4dde8d6c701e976d3fbbf4de6a3384329118d4ddb49adb2bb444
            65598abf6df25858b450c7767e282ccaca494088274e37353674eef58f583937
            d3d184ef727317d3672397a74c8fe327919a3df8fd65af0bc8cebbc40095adf8
            9f1bf2c5e6dc6ba44633fd8433b25f065f5e3eb4840af23cc534415406745a31
            """,
          publicKey: """
            5140108b93b52d9ad572d6129ed6564766f8df3755e49fa5
            3eba41a5a0d6c1d24a483c90070583a66e3cfa52b6fb1f31
            ff52498446a40c61e60c97554256472625633eda0c1a8b40
            61481fecfbe9c4503e99dfc69e86c9e85c8cc53dca6b8dc4
            """,
          signature: """
            b2726b2ba9da02de35e9953fc283d1e78700860d4c33dce8
            db04dd41499d904866c1b8debb377f6c0dfcb0704252174f
            0775b027068d7ad55121a278a819f52099ace750d5e996ea
            ec9dee7be72758736cf769650148fbd5c411beb9b88f979e
            """,
          result: "F (4 - Q changed)"),
        CAVPVector(
          message: """
            58ea3b1e82f97708053d0b41441d0aa9619050e86ac6c4f7781164e5da3019c4
            7a839366509fa95812e4f64afdc62b627c7a98f633dd05db45c1d8954fc83bdb
            5042679378bb7e4c7863aacf2026360ca58314983e6c726cf02bb347706b844d
            dc66aee4177c309cb700769553480cdd6b1cd77341c9a81c05fbb80819bc623f
            """,
          publicKey: """
            31f4fc2fac3a163a5796f5e414af6f8107ab5e4a98c755d8
            1efa9d5a83c10128c16c863190112fc29d3d5f3057a2edf1
            fe208743f3e96c3a34b5fff78c9716c074a1ce3dc01c3f0e
            471ddfae91cd88e7dda38dd0e5e1f91b00b8539da3cc10bc
            """,
          signature: """
            706911812ec9e7370234efd57b2855975eab81e9c2fe783a
            a8e442dc6e7d681dab2dc0dfc6765f87ab67001108e3facf
            42c89efa22d853d32f619c9fe13e9852889ac98a9fed5d4f
            a47fed238e1cbe70d7970af9f7bdf84e51176af4885f2490
            """,
          result: "F (4 - Q changed)"),
        CAVPVector(
          message: """
            188cd53097ef3e64b78b9260bf461708c836f25f2bcc98b534af98b96ee4b324
            e2203a7e62dbc396966f56419fb5135cb124369aaa025f396eac72f05ab45950
            d9e02cd5a2357eafab9f816117b7f1de192468895327802ec79f5d6b5a3d44d7
            afbed7b4a308e365655b8db2bde75e143062ee48b7c51688ac5db0bc7c83ec9c
            """,
          publicKey: """
            1f7911dcfe63a6f270cf75b8584d9b1b4a00afc1fa43543c
            945945b8a821ebeb37fbc705a000f9cc7c35f7d27027b7bb
            f11835ec80c4ac06d99247e73bf72522109ac255e6109262
            de4dfbf9619244f74fb6c9ee57694537d7e79c248db34dc4
            """,
          signature: """
            3587c9c6885adf3be1086825f9a41ccd2edfa0bd95e7fc4d
            ba5a9710f41d539132de7772f14c18e318f8992b66d2a86c
            73a844d729599d4e3e3c1b63e9c4bf5a73d1f69e0160857f
            e63a56c381c051f5c37ea6b4cc4caacb6ff26ef9699efe30
            """,
          result: "F (4 - Q changed)"),
        CAVPVector(
          message: """
            6462bc8c0181db7d596a35aa25d5d323dd3b2798054c2af6c22e841b1ccf3dc3
            ee514f86d4a0cef7a6f7f566ae448b24dcc8d11eb7a585d44923ea1a06c774a2
            b3eb7409ab17a0065d5834ab00309ad44312a7317259219543e80ddb0cc2a438
            1bf6e53cd1bb357eba82e11c59f82e446c4b79314119182c0de96a1b5bae0b08
            """,
          publicKey: """
            2039661db813d494a9ecb2c4e0cdd7b54068aae8a5d05970
            09f67f4f36f32c8ee939abe03716e94970bba69f595fead6
            e2d5236e7e357744514e66a3fb111073336de929598eb79f
            b4368c5bf80814e7584a3b94118faac9321df37452a846fc
            """,
          signature: """
            164b8ac2b34c4c499b9d6727e130b5ef37c296bd22c306d1
            396c6aa54ca661f729aa6353b55d7cf1793b80b5a485115f
            4e7187f8f735b7272f2c0985315b5602bb9b1a09f32233aa
            10570c82d1ccedef6e725800336511e47f88ddbbbdc08f54
            """,
          result: "F (1 - Message changed)"),
        CAVPVector(
          message: """
            13c63a3cb61f15c659720658a77869145ae8a176c6d93d3a8aa9946236d9fb04
            63db9e48c667cba731afaa814ba0d58357524f8de28d4c4bbe2691dac9b32632
            a7dd0f99fd4cb240290878305011f7d3e37ecc410cc1fed601e7901e8be6414e
            a44317584843a2d2ca2e15103e1ea49365bc384355b3c6fa6ccdd452543e9769
            """,
          publicKey: """
            46dcf8ee848c6459fa66d1cae91ccd471401a5782cb2d3b9
            b9264189f0e9ddf7197b05c694931bde3306240cf9d24b7e
            79d9508f82c5ead05c3f9392f3b1458f6d6c02f44420b902
            1d656e59402e2645bf3ba1a6b244ddb12edbb69516d5873b
            """,
          signature: """
            5ffba3b5bd7c3a89ec40b47884b0b3464e8abb78608c6d61
            e1e62c2ca98d44fcdf61825d69dffee8408d0849d0623bac
            0d2597b5fc3842ffce1957172253a8c9c0e4dbe770ce54f7
            0f139e0545dc34ec639d609e14175bdb2b812ccfda00c9d4
            """,
          result: "F (1 - Message changed)"),
        CAVPVector(
          message: """
            6939a9118adc307107aa6b0057c280d10fa44a64700c7bd23e1f33a478ad2cfe
            596c05f72b540cbdb696aac6ab98d9ca8c62f33e182657130b8317a76275a599
            6333a5d3547e2293b401d0adf60f91e91d2137e34f3336e017c3c6dba6bf5b13
            dd0de288f9b20a896a92c48e984fbc09f920fab82f3f915d6524b0c11236aca4
            """,
          publicKey: """
            097cea75f685cf4d54324ad2124ce3f77b1e490bbaa1ffac
            de40dd988f7591e1c5d158e6f232500d958762831914af7f
            716d8bc056daf69ca2edd21b89a6ae9923cfcae87bfda5f9
            a6e514dd4b9d28d164fcc613ca2afb9660adfece59f09b66
            """,
          signature: """
            1c5d4561d2a3af8835839b543098c101c715c545eb7d0030
            0c5cb05bb08dac29e732ffdc31c50915e691999ad505104c
            c3442f2fb1498fd47c2f959edff37a19783e3ccee80dc695
            5ca64db087fd188e67358e7b9223535bbb858d21ba6a978c
            """,
          result: "F (2 - R changed)"),
        CAVPVector(
          message: """
            c82071e42c45ac3597f255ba27766afe366e31a553a4d2191360b88a2a349ee0
            77291454bf7b323cb3c9d7fec5533e4e4bf4fb5bc2eb16c6319e9378a3d8a444
            b2d758123438dbb457b26b14b654b3c88d66838adfa673067c0552d1b8a3ade3
            a9cb777986c00f65cace53f852c1121acf19516a7cf0ba3820b5f51f31c539a2
            """,
          publicKey: """
            d2e2b3d262bb1105d914c32c007ea23d15a98197f0ed90b4
            6a17f3d403e406a76c8f752be1a8cd01a94fd45157f6511a
            e585fba180017b9983b4c853ad3a5dd52e079c5f0ef792d1
            a0213b6085e390b073de1a4b01749ceab27806e5604980fe
            """,
          signature: """
            49c001c47bbcee10c81c0cdfdb84c86e5b388510801e9c9d
            c7f81bf667e43f74b6a6769c4ac0a38863dc4f21c558f286
            1fb4ff67340cc44f212404ba60f39a2cb8dcd3f354c81b72
            19289d32e849d4915e9d2f91969ba71e3dd4414f1e8f18f7
            """,
          result: "F (3 - S changed)"),
        CAVPVector(
          message: """
            137b215c0150ee95e8494b79173d7ae3c3e71efcc7c75ad92f75659ce1b2d7eb
            555aad8026277ae3709f46e896963964486946b9fe269df444a6ea289ec2285e
            7946db57ff18f722a583194a9644e863ae452d1457dc5db72ee20c486475f358
            dc575c621b5ab865c662e483258c7191b4cc218e1f9afeeb3e1cb978ce9657dc
            """,
          publicKey: """
            cd887c65c01a1f0880bf58611bf360a8435573bc6704bfb2
            49f1192793f6d3283637cd50f3911e5134b0d6130a1db60e
            f2b3cbf4fe475fd15a7897561e5c898f10caa6d9d73fef10
            d4345917b527ce30caeaef138e21ac6d0a49ef2fef14bee6
            """,
          signature: """
            addfa475b998f391144156c418561d323bdfd0c4f416a2f7
            1a946712c349bb79ba1334c3de5b86c2567b8657fe4ca1f1
            1c314b1339f73545ff457323470695e0474c4b6860b35d70
            3784fbf66e9c665de6ca3acb60283df61413e0740906f19e
            """,
          result: "F (2 - R changed)"),
        CAVPVector(
          message: """
            93e7e75cfaf3fa4e71df80f7f8c0ef6672a630d2dbeba1d61349acbaaa476f5f
            0e34dccbd85b9a815d908203313a22fe3e919504cb222d623ad95662ea4a9009
            9742c048341fe3a7a51110d30ad3a48a777c6347ea8b71749316e0dd1902facb
            304a76324b71f3882e6e70319e13fc2bb9f3f5dbb9bd2cc7265f52dfc0a3bb91
            """,
          publicKey: """
            a370cdbef95d1df5bf68ec487122514a107db87df3f88520
            68fd4694abcadb9b14302c72491a76a64442fc07bd99f02c
            d397c25dc1a5781573d039f2520cf329bf65120fdbe964b6
            b80101160e533d5570e62125b9f3276c49244b8d0f3e44ec
            """,
          signature: """
            c6c7bb516cc3f37a304328d136b2f44bb89d3dac78f1f5bc
            d36b412a8b4d879f6cdb75175292c696b58bfa9c91fe6391
            6b711425e1b14f7224cd4b96717a84d65a60ec9951a30152
            ea1dd3b6ea66a0088d1fd3e9a1ef069804b7d969148c37a0
            """,
          result: "P (0 )"),
        CAVPVector(
          message: """
            15493aa10cfb804b3d80703ca02af7e2cfdc671447d9a171b418ecf6ca48b450
            414a28e7a058a78ab0946186ad2fe297e1b7e20e40547c74f94887a00f27dde7
            f78a3c15eb1115d704972b35a27caf8f7cdcce02b96f8a72d77f36a20d3f829e
            915cd3bb81f9c2997787a73616ed5cb0e864231959e0b623f12a18f779599d65
            """,
          publicKey: """
            d1cf635ca04f09b58879d29012f2025479a002bda590020e
            6a238bccc764478131cac7e6980c67027d92ece947fea5a6
            21f7675c2be60c0a5b7d6df2bcc89b56212a2849ec0210c5
            9316200c59864fd86b9a19e1641d206fd8b29af7768b61d3
            """,
          signature: """
            6101d26e76690634b7294b6b162dcc1a5e6233813ba09edf
            8567fb57a8f707e024abe0eb3ce948675cd518bb3bfd4383
            4e2a30f71c8f18b74184837f981a90485cd5943c7a184aba
            9ac787d179f170114a96ddbb8720860a213cc289ae340f1f
            """,
          result: "F (1 - Message changed)"),
        CAVPVector(
          message: """
            bc5582967888a425fb757bd4965900f01e6695d1547ed967c1d4f67b1b1de365
            d203f407698761699fec5f5a614c21e36a9f57a8aaf852e95538f56157855345
            68811a9a9ccc349843f6c16dc90a4ac96a8f72c33d9589a860f4981d7b4ee717
            3d1db5d49c4361368504c9a6cbbaedc2c9bff2b12884379ba90433698ceb881d
            """,
          publicKey: """
            d15ca4b2d944d5539658a19be8ef85874f0c363b870f1cd1
            f2dc9cb68b2a43a10d37064697c84543e60982ab62bb32c8
            062fb7dfc379fc6465302ac5d8d11d3b957b594c9ef445cf
            e856765dd59e6f10f11809e115ac64969baa23543f2e5661
            """,
          signature: """
            e2cf123ce15ca4edad5f087778d483d9536e4a37d2d55599
            541c06f878e60354aa31df250b2fc4ed252b80219552c958
            696707a7e3f9a4b918e7c994e7332103d8e816bbe6d0d1cf
            72877318e087ed0e230b0d1269902f369acb432b9e97a389
            """,
          result: "P (0 )"),
        CAVPVector(
          message: """
            4f31331e20a3273da8fce6b03f2a86712ed5df41120a81e994d2b2f370e98ef3
            5b847f3047d3cf57e88350e27b9ac3f02073ac1838db25b5ad477aee68930882
            304fc052f273821056df7500dc9eab037ed3ac3c75396e313bf0f4b89b26675a
            f55f3378cf099d9d9a25a4887c1cfd2448f5b2188c41d6fa26045c5e974bf3e4
            """,
          publicKey: """
            c83d30de9c4e18167cb41c990781b34b9fceb52793b4627e
            696796c5803515dbc4d142977d914bc04c153261cc5b537f
            42318e5c15d65c3f545189781619267d899250d80acc611f
            e7ed0943a0f5bfc9d4328ff7ccf675ae0aac069ccb4b4d6e
            """,
          signature: """
            b567c37f7c84107ef72639e52065486c2e5bf4125b861d37
            ea3b44fc0b75bcd96dcea3e4dbb9e8f4f45923240b2b9e44
            d06266e0f27cfe4be1c6210734a8fa689a6cd1d63240cb19
            127961365e35890a5f1b464dcb4305f3e8295c6f842ef344
            """,
          result: "F (3 - S changed)"),
      ])
  }
}
