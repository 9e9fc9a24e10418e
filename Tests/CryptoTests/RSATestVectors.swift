// RSA test keys and signatures over the message "dnsward RSA test", made with OpenSSL 3.0
// (`openssl genrsa`, `openssl dgst -sha1|-sha256|-sha512 -sign`) or, where OpenSSL cannot,
// with python3's pow() from the same private keys; each digest is the message's hash.

import Crypto
import TestSupport

/// One public key, signature and digest, verified as a whole by `verifies`.
struct RSAVector {
  var modulus: [UInt8]
  var exponent: [UInt8]
  var signature: [UInt8]
  var digest: [UInt8]
  var kind: RSADigestKind

  var verifies: Bool {
    verifyRSA(
      signature: signature, modulus: modulus, exponent: exponent, digest: digest, kind: kind)
  }
}

/// RSA.verifyPKCS1v15 over arrays (an empty one passes a buffer with no base address).
func verifyRSA(
  signature: [UInt8], modulus: [UInt8], exponent: [UInt8], digest: [UInt8], kind: RSADigestKind
) -> Bool {
  signature.withUnsafeBytes { signature in
    modulus.withUnsafeBytes { modulus in
      exponent.withUnsafeBytes { exponent in
        digest.withUnsafeBytes { digest in
          RSA.verifyPKCS1v15(
            signature: signature, modulus: modulus, exponent: exponent, digest: digest,
            digestKind: kind)
        }
      }
    }
  }
}

/// The hash of `message` that `kind` names, by this module's SHA-1, SHA-256 or SHA-512.
func rsaDigest(of message: [UInt8], _ kind: RSADigestKind) -> [UInt8] {
  message.withUnsafeBytes { message in
    switch kind {
    case .sha1: bytes(of: SHA1.hash(message))
    case .sha256: bytes(of: SHA256.hash(message))
    case .sha512: bytes(of: SHA512.hash(message))
    }
  }
}

private func bytes<let count: Int>(of digest: InlineArray<count, UInt8>) -> [UInt8] {
  var bytes: [UInt8] = []
  for index in digest.indices { bytes.append(digest[index]) }
  return bytes
}

/// The bytes of hex text given in pieces (so that long numbers fit on lines).
func joinedHex(_ pieces: String...) -> [UInt8] { hexBytes(pieces.joined()) }

enum RSAVectors {
  /// openssl genrsa 1024, openssl dgst -sha1 -sign.
  static let rsa1024SHA1 = RSAVector(
    modulus: joinedHex(
      "d3931abf1046bc7300688cc28d52d2a720091c7fcddcaa3fdb3df6567e02192a53de59f90e17c5b853f5",
      "75f79a618e6642f8e7d6e37b258f3bf5016311cc940c99ebea1e170dc49dd61d8a193449500a64629517",
      "a687bdc9ee541c83471ee0ddd6cc5119b61fcd325c368004db7d2651060630859a5c8dbbbd2df9c0f64d",
      "7089"),
    exponent: joinedHex("010001"),
    signature: joinedHex(
      "2819f94ecb67a16ffc3505e97a400ed5f561530a85b993af00d7040ea42ccae2133fbbec3726a89c2409",
      "571a9fd0bd517069e24e76f642835ff3eb5c406c9dcba69defce1694bf4d59aff0bdf6ebb7c62ab6e0f2",
      "2f69734df6d9a421f4874d20b80e76db339a5ec42ed9711de1bd8a3786f4a6046433dd93ce02c69f6188",
      "1b23"),
    digest: joinedHex("1d6b00c8b0ea3dd571b51d039f8f67736d1a387d"),
    kind: .sha1)
  /// openssl genrsa -3 2048, openssl dgst -sha256 -sign.
  static let rsa2048Exponent3SHA256 = RSAVector(
    modulus: joinedHex(
      "c4b864162bde3ea4434a94e216107af5001535d6bc5a7b2bdf0c3ec1a636531e9aa395d423e3d6551386",
      "eafdb0ff32dfa3b474fcc041d03c1409f3445081bcd08b611e7955ef2b8ab870d9961c60b6dd78de1134",
      "bf83caa525907b7c217d67a531fb52f0f32561a51e502aa159d69186ba8632786bb564fb462b10f65f4e",
      "39be210cd207dce7345e1c92c60271ea99e6fb70b5b0e490ed7d6d92304a80387a55f4d61b7aea734787",
      "eea59d9f306b460ddadd05bb91c6d8d254c6292f59aac6734d74aee9faa6cca7b4f84ac4a146b04fb46e",
      "8e203a14f17e8b8da97968b6e0ed4931b9fc706ce30f55dd039c43fee81cd8d235e31c30f9c3e9d0ebc9",
      "02b184a7"),
    exponent: joinedHex("03"),
    signature: joinedHex(
      "2f514dbece110d752739ea541d61489a797c5e0f88664a5a538b4a83954790f6c1c9d503afa615ce927a",
      "0cff7ad56e88731665b7e55b786a947a7221b37a9dafacd402349185f0bfee1699a959d34eb40c229fb5",
      "6f7c0e58ab7f7a89eef2bd68c004e73099e5c99406543619bf6a69cc16cfd3c1e4ca2528a36b6071a01b",
      "e40faf3352ad61e572d9b414e4ed436f0c1b68cbe4c40ebdb15d4b41d12176965d62b5ac3b8870dac7fb",
      "e65f7aff2363cb2209db4fc5e0fbc6c96973d1c5ec6677d3e412d2ce33a21d4da7e9c351b8f245acead7",
      "14c57e78e13df2ee632d9781ed4917d3778d66060d4ca21dc3b6ff943b61af114aa10bcf1a246c83a53e",
      "c91156ec"),
    digest: joinedHex("dfaa5169b51d985391d5cdf7a410dc9f44f2a2da3eb9ec9d76c0ee8a9d6c7853"),
    kind: .sha256)
  /// openssl genrsa 4096, openssl dgst -sha512 -sign.
  static let rsa4096SHA512 = RSAVector(
    modulus: joinedHex(
      "e3c73ec931036d3ad526745c3e3d3c6d7871cd4bee93c20a0ad1c492f08c321bea2b9e020188eebfddc5",
      "71811c5d76575bf2b5e00db61f927ba0ffd4e01e66f91438a041cc75a4f53d5a5d0b57f255d547b44f6f",
      "b7d31c6a540944bea1799a6fa11bc0055b9c43f5ccb2def2786fee51b7eaedcae6be3d097ce5def9f3c7",
      "0f5e119e68cfb9e56d4e2b21cfc0382942ee83877e00279f90f29f4107c89fd899a935c8551d1b8acb9e",
      "330b87a5c30f098232000f6748fa7e5c60cd1ff0254e81d5039c42b511b8928692d8338d7872c0db382d",
      "3a32ac069c096a888ca0390840a38e1f766c615ad1f5e33b5eb24e5eaa410ca27e99303d2b118b3ba43f",
      "1ad54d74881b55bed9af7462630ea0d8ae7d309aca970e6516a15947282e54cdfa0fb86d1978de532ad5",
      "dc96abb88ca0813d16ed7ecc6232fcf63903bd99c28cee82d95fc2e06b2155b88638e6b0c9b46d2f1b38",
      "21d8ef76396d995d6c0e7882c0f7522a5b82fcb61b14fbd159ef8db1db3aab17f720b4a2406ecbace5d2",
      "a197182f940e04d84ea4a2d2e13570131aac459a119f6ca584e361a6eeea4af533c7892cb838f8248140",
      "f8f8aaa025128c51471bb6009c4ffb284917bdc8be347aed8980a43dd4496a29120a52da365efdfe7444",
      "a5995130f3798812a51f4c17079af286d77716d38264fabceb996bf222a510cf6f5572838785e5f8096f",
      "41aababb211340cd"),
    exponent: joinedHex("010001"),
    signature: joinedHex(
      "6437d77e4a6787c92bf015e04fabd57bf86e957960b285a4355fc968a77964260af3a9b145a5a6070122",
      "c43bec38340b8db6dd8a17de481352429655bfcefcdec50f478e0242e0dec36acf810ddcb1dfccb97338",
      "88155b72b43e2d9e9181a191261cfacda1281f7e60fcb8dfd714ef1057c75e012e46aaa811df3b147c34",
      "f561dac6933b8f71df4a7c3bec9bbfbd3a0459e2e9e3b3da1a868e9474290e01e193caeaac593ff373a8",
      "8a5562e4d108933f0d3d9cf4c1a7e364d4dec8510f8e5de191ef1567554c28da67e1d9589def82abf06d",
      "ef0300fde603786fbfee64872fdec0e067b915806e001e3b8115b4c2f19065d5b0508f70c1e2c56041f0",
      "d036b533152b58369f75fa2a2395dbcb178fddb5f7b828baec99353bbdf748755eafc760e47efc9056f4",
      "03e7cba1180981eeab7dbd253732d8a95f3dab7f99cb837fe2747b12f07ef1e5ea658658e002887be665",
      "f972ea78d9a55d3d480fed4716f270ba7e57b24d2573acd0ee3d9ef6f67aba7497341ea0b5e60b435c97",
      "071541fc5976abb5ae6c25785126871dabf08cbc74a2113af370cacfec21f3b69bfb75388b960c4ecf49",
      "99d26fd0c4c0a3980fb7e9de3492dd49703dfff3b4799e20c559e2ad9565c7daa815545be344f8315351",
      "7dc5cb469e20ecaaedec5cce481e266d3987150a7c4fe27de8d236bd5f524a283f225744f014573e2477",
      "677994f7bc9580f2"),
    digest: joinedHex(
      "0595678913a3dc6542ba155b1494a0222af14ff1748bec789e92d4c4e8d1a597e55269d42cddb5c02b5f",
      "ee1c263da3397c8a1e415c08888d483902c862761a7b"),
    kind: .sha512)
  /// openssl genrsa 2048, openssl dgst -sha256 -sign.
  static let rsa2048SHA256 = RSAVector(
    modulus: joinedHex(
      "bd841e04992a3cbb713233299588dd71a102cab1a272471f1385679eed319f67dac5389fc3ff0243bc19",
      "22aed8ae41c96c0c44ca3dd1125ee8ad92896f7528e58f5db55c8d488c6c8ad83082b9e8be92042ed9cb",
      "2268d57ca41da5948086a9f8cb23fcdebfd5c65180e5424bc7f06dc77fa7ea5dcd18f34e45ebed891155",
      "a0420b7c34813ecf2b03593c775496eb62c5d65a9e1bb452c1bf87543be298f7d7fb36cdc70c7a92a022",
      "db2755c849ed1d9aba06adbf6d9c97e54eadef6e1de56d09e604ef348d3cb869d8f85152eca00b004e8c",
      "7db39b4e5338b5f844435396f68d1c8cb5f7ed5e77a5d739a5a6b79f8d131612410eda2ecc1ddcce441d",
      "1e01126d"),
    exponent: joinedHex("010001"),
    signature: joinedHex(
      "5106201217aafc3ef00019a8ea39da8ae31a8d2aa961d40e81798c45e6d94c219396ce998c8648f353f7",
      "06e0c4d51fe786d98bd96cffd71d4336ed2fe0b10bc61fa726bbcae3ed6d47d6dc6e64d2819207c4167c",
      "3f4486a1e321c79404fd292d358ae89307d7cdebec6a04bc20d663cbe9bcdb2b5454f15b50c1cc6b4f29",
      "bdfc1fe254de6ccd8a6441f222639046f90bfdce4484a72280340d04af983aa7a5c4eddd40e544319594",
      "cf5598cacc13e1c503e8b713491b5830664b522e52c9e95bc8ac1bfa4c03c155e0c4f68f579d162c97c0",
      "4808ffe55ffa9f0f038355326d3171e9ee1102f4396dec356981e3736517f16d2cb82f0b8cb501edc4ab",
      "fe61bed8"),
    digest: joinedHex("dfaa5169b51d985391d5cdf7a410dc9f44f2a2da3eb9ec9d76c0ee8a9d6c7853"),
    kind: .sha256)
  /// openssl genrsa 1032 (17 limbs, the top one 8 bits), openssl dgst -sha256 -sign.
  static let rsa1032SHA256 = RSAVector(
    modulus: joinedHex(
      "c5dca97818b3f1cd0510a4faa81fd522987210ce3e2937c9e9ae2c4fe48c02e15f89fc17144ee1e923b5",
      "5cc94a2dbc94d394cc47798b546a9ebe7b802da1ca029b46eaf0424d50ccd46d96bb3856edb081d5aaad",
      "8cf09b51b9f66050168b7b770e77046254f89d4dd5cf7895d2fa288bcb6530ef4ef57d394e0d9ccea574",
      "1f4525"),
    exponent: joinedHex("010001"),
    signature: joinedHex(
      "0653a577c7acdaad3bad4392ab44879a85459ca4a9a306f5d19fa2e5780ab95502d24fa89667a7ecbab9",
      "e96e5edf269c4832357631d44bb99872d8abc25bb0992c5e6e605887de5efa092ba20d246ddb8462564b",
      "a8b9c5394528313b1478075388c7af2eaee274615974318f2328c6616fede90c73f706bdc69684f76637",
      "1a59a4"),
    digest: joinedHex("dfaa5169b51d985391d5cdf7a410dc9f44f2a2da3eb9ec9d76c0ee8a9d6c7853"),
    kind: .sha256)
  /// openssl genrsa 4104: a correct signature from a key over the 4096-bit limit.
  static let rsa4104SHA256 = RSAVector(
    modulus: joinedHex(
      "9c426de5775e6fe0f5e606819e395bb0e82b1e6d6e011da517304fe7262dd323f18e116cd35dbcbc214e",
      "e2b95f43e200099822fb763eabadb588fd56981adf36445453334feb71301928d104b217072ce4bf77f6",
      "bd9780de70753fc6e3dd6c4006677a90188f3d464d1399b88f0429234510803d1e3e94b926fdd643e0bf",
      "e9db49a0c92d17a9509c6eb41a44a12a49e8f36ce05ab150443e026f383ccf6f2d597c7c283372db6015",
      "7f7288a2e13f73b73a744484c636ef11eadcc3e9cc36ea32a97937a3e7439b5c17d9f1d1fdeb9be2e0ff",
      "7e05b2d3c096c38a846de3ea1000d4a48360b38c3f9f9986c93a3ad6b3ea35f8f5337122e3ae880846a8",
      "0a869fa36e78a3c8e193a98e20955c208e190e0d385b6ad561b8d7cae50b10b88da998b19a7c173de173",
      "3b5c851bab0c0464da8cdc7ee41e7b0c6f9a9c4fe3a53d1855cf4dda2b6eae7c668ce990d43848eb1941",
      "0f8e72ad839cc9593022657b5fc3fba664538cb354279fb4904f414fd0d5ef6f41a8d6c05c43ca1655ca",
      "d19f8feab5b2f4b68e3e9da6aa30569a33015a8d5b6270c88bc895e44396ab71e21da43427bd11349adf",
      "719d3c7861bfa8d8217f4504ac65e1b90aac1f06327165ae458ca5a65bcae22deb031c1e2cd76888c785",
      "cb7a325ae202a4476771251820acff0a0c74cad03d4313217794c0e5c911dfe868486cc73356c9cb9934",
      "326295e3863eca712f"),
    exponent: joinedHex("010001"),
    signature: joinedHex(
      "75faf86a433ecff92bf87d84389f548cff50f233d8fdad5626d659dd9b44e216da4b637eb04cc07d1afc",
      "04943d26d57ce34c0bb7627f1b5ac07e939744bc3b7b676a0a2609323fac891cbb833a221ad5161fad3f",
      "7025fd327f9549d4036ae852bd25fd66e2662a41e499f6165773b4a2155803333b67fa48be7f6c9d9a5d",
      "f2ec0c3d2e3fff67d2ad77cf7c84838f824b861908acda25405a7795146aea188b26ed4c09a0d58b4e85",
      "2fac2c7f01d9df2a7528a484fc1fbad77f9a3f4c9b53482358bdc3eaaae8424a0c466f2f6206680eb732",
      "e9e8419b96076ce7f466521286c8dbbba6186de364381171f50490222c091e5b51be1b93ed2a27719ea6",
      "a2e431607b660ace7b8987c19224534228a1469ef738edebb99dc5a18aa5e96904bfcf3fec7b4e4dbbd4",
      "ef29ac78bcaf568a33831b918cafd2df65cbeca210ceac4c833fd7d9987a8691e979358672cd56f7ea14",
      "a30781e69728db1cda809d3adb3eb2db30f4f75271ccff4baa4b664c45cde6ac8e96d26b18e68058e91b",
      "adca0593f385455c41fdb4c1e538871fc9503de5dc4381af5b2ebf0fd09dde125c5837e392b47e1c173a",
      "23f60b7f3ad7d0277406648a4620d274b17bc011930ca2f6212513280c0ad362ceb989202749fdd582da",
      "42b3d0cdbc2bba812a9df82e9b28558ce498aa29303c1306b5f8f9e338c848fb4d3b393634ee72cb6f88",
      "130743ec6425617ce1"),
    digest: joinedHex("dfaa5169b51d985391d5cdf7a410dc9f44f2a2da3eb9ec9d76c0ee8a9d6c7853"),
    kind: .sha256)
  /// openssl genrsa 512: the smallest key allowed.
  static let rsa512SHA256 = RSAVector(
    modulus: joinedHex(
      "d135fc5e70092adeabbd2625f9f594fe94e0486348ca4d6e0ee14bf013265f38cd6b8e5bd5e579284328",
      "0de61fbab448f26067fce826c58e94f147b58222cd11"),
    exponent: joinedHex("010001"),
    signature: joinedHex(
      "622c113dbfe401412e38c0872ecf5492f1d7e2621cf537d26ac57d225fe8d1534f44b60371ad682b2ea5",
      "2127b4d309ccb9eee5b55a63d7f484af10381e7086ad"),
    digest: joinedHex("dfaa5169b51d985391d5cdf7a410dc9f44f2a2da3eb9ec9d76c0ee8a9d6c7853"),
    kind: .sha256)
  /// a 496-bit key made with python3 (openssl refuses under 512 bits); correct, but too small.
  static let rsa496SHA1 = RSAVector(
    modulus: joinedHex(
      "fb210b26ced682508d20781d1b22ba1df8201b9dc73b190f33d86353e08411e51bd8457ed32dc0e7aa0c",
      "755a7fb2f769c547546b2e3ef9c1c8b7d9d91b13"),
    exponent: joinedHex("010001"),
    signature: joinedHex(
      "a31b683b9b5ac35874888c9e9156349b22f21544732630c9bd165a614b0b27014b3f289e4aa45d3e29e7",
      "4266a4e0bce4f56c467975029cd9d7534ccee55a"),
    digest: joinedHex("1d6b00c8b0ea3dd571b51d039f8f67736d1a387d"),
    kind: .sha1)
  /// the 1024-bit key with a random 1024-bit public exponent, signed with python3 pow().
  static let rsa1024LongExponentSHA256 = RSAVector(
    modulus: joinedHex(
      "d3931abf1046bc7300688cc28d52d2a720091c7fcddcaa3fdb3df6567e02192a53de59f90e17c5b853f5",
      "75f79a618e6642f8e7d6e37b258f3bf5016311cc940c99ebea1e170dc49dd61d8a193449500a64629517",
      "a687bdc9ee541c83471ee0ddd6cc5119b61fcd325c368004db7d2651060630859a5c8dbbbd2df9c0f64d",
      "7089"),
    exponent: joinedHex(
      "c526cdb81aca8a2a723696af73986ac75fa918e309ce295e87dfeb5d9dfa3566a03578d700601fbead8e",
      "c32eaef93e6c337ac7f6526ec9cbc3d5e8c8aba01cbd9609a42e019992963787b4b9d33a9b763d7f06f1",
      "4f6d6de84cfa0b8f8ff2ccc494b009d1a327f664ed04c2c17a02663988f5174b596afed5b8bbdda55eab",
      "fc63"),
    signature: joinedHex(
      "607ee359d196df9308abf315959352d6e0a133a51c91150cef50fbf7dc68af04fd83ada894e6452ac93d",
      "f0c1fb061458a613f20b0938157781edd9471b4fdc3ef6b8b46ca05ff6f832bea1e302abff30af5ad792",
      "a60b3240080eaf5d550b07ea119e97ccf37f304ada431a2372144f49d08fae5da00f88dd8acdd77118ba",
      "cecd"),
    digest: joinedHex("dfaa5169b51d985391d5cdf7a410dc9f44f2a2da3eb9ec9d76c0ee8a9d6c7853"),
    kind: .sha256)
  /// rsa1024LongExponentSHA256's exponent plus 256·φ(n): the signature is still correct
  /// mathematically, but the exponent is one byte longer than the modulus.
  static let longerExponent = joinedHex(
    "d458418cc86186fd2adac3593cc66b11e768c598b0e6786939c5d641dba0135fba7e8f71e51825d812a304ba",
    "c91087a4af2c629ed9cd945907b8d74bda783427854d526532af9005dbcd3d6bac13e66926c9fbe49a75dbf4",
    "47836f072d256b962b9fd0ba318d50b5e9b5fd78eee5b23ff3aff7f6dede0c7878fa6c641748ad1063")
  // rsa2048SHA256's key signing EMs that differ from RFC 8017 §9.2 in one way each (python3).
  /// EM with block type 02 (encryption padding) instead of 01.
  static let blockType2 = joinedHex(
    "35e70b1bc35ce772f4f6f458a4042399ab25fdc6e4566a87b671fbdfc089d33c615331c6f7cc1328d114fc2c",
    "73dade0e3014fbb7d5feb253734064c1592f5dbacc1230dbeb26cfd1fbacb476352e7f70f0624e4fcaed4cc6",
    "597895fa4d5ff19b2c561b047ca8e0367b2d22db9c7c657d792766bbf0068cd6197b02de013096392e734a0b",
    "49d118f6365e11a90556276589d37ca72559157a4045d4349c3e2bf8d7fd9866a4915b09fdd92b2249caf4e7",
    "5357d7fcdd8b571125a2e7efd548a2f8ba858cd703ce7217cce986cc77a6e2a675dd67482e6ebcc287cdef62",
    "b6eec15f5c79414bbea91896594eabf978387c7beed1b8415fe26c24985697115e04f566")
  /// EM starting 01 01 instead of 00 01.
  static let firstByte1 = joinedHex(
    "208b5836d8a7b39dc7df1fc4040c073365bf1e30faf3100e2340877786619b92742bad85f5c71090d2f12f75",
    "14ba28c62cfcdaccb61c2423f4d79b43408e07d9863d1fc491289de9e93084e8ccae4a30f5f7cfc1ad76c75a",
    "a7705e848ffcbcea17422b7d8368e3713a913f302f2afe1f541f77be16197c58e348f153f403e7048a0501f3",
    "3181426a8294cee206874dcd2e63aa233a2c59510fffb106cfd24283d2d1cef3e2ab09fbd0ce7b239786a48a",
    "de534e8dfc1043295dc1f61ac3b329c8c6e65f4cdb5d2927e9b45d3615ad2ab9c4ad443e2816f9a8ac338340",
    "26518f2a323768ef335b985ae1efdc505a7fc70330ec1bb5cb05a45537ef5bb6a6586356")
  /// one padding byte 0xFE instead of 0xFF (EM byte 100).
  static let paddingByteFE = joinedHex(
    "0b99ff365cc6222757498d0f6ec9f8c5fe066ba326b123fbe29bde10dedb4237d24e189b1c5970d4d70cb0b3",
    "170fb6b39ea09a4e0477a8a714b920ce5dc0737eb1f658ef2e1966d01111287e87e387b74dd383225cedc167",
    "cdbad7618a115320c76167ba467a4dfb4b23670d8b741dfbb9ecccf43517e3584179ad42cc8a6af1cee39909",
    "33a1b81ae074bf337528f5ca00ca8077501a3712a57ca615180d7fee1849a48f4d8e23260c4a7621f7f644f1",
    "5d6d4a9da66ac0f20ef4c4f660fbf85c61ef5943f15c0c7dda7da8aff3d1ea526a0ad4e7ed1240a55d3addca",
    "1fc07b2402aa10ee76cda3598c09171ae805237157d93a12ff62a3b3a2beaa53d19e8a9b")
  /// the 00 separator before the DigestInfo replaced by 0xFF.
  static let separatorFF = joinedHex(
    "b4b18e4e07611a04114ea75f29153ad49b0f2cee44a8a8ecfa0e8f3ee3db507b58f6a301c788b88bfdfd4d10",
    "8dc39033dabf15d6102bbab0af849c7c5b5275d96403cc34c3f0258944d734050b6b9763fa6b9aca44bfa14c",
    "19f5b61fe8720c90236a603d70d5bad967b5bf7b2efe031356123bce1ae6128308c9366b518d5e30f8115742",
    "5382ebaeba731f1c8a7778ef919760477a3a15cb294fd5724f56bd511e62ac2d37d8d8fbc585d6e66908a172",
    "dbe69aa0773cea644bb4c93a3e5bc6ff147cb21e4cc7e0a6112404a2834b15f049a1a5b79ca853a193e838dc",
    "0686b735a98d8bd80df81193440c72ad171a077abd7b3a55cf30ff1bfffe1ad7d43f49df")
  /// the hash OID's last byte 01 (SHA-256) changed to 02 (SHA-384).
  static let digestInfoOIDChanged = joinedHex(
    "0bc8ff9301fd12108dfebeee1c7cf4dffedd4489c3eb9eac6ad825f028e5d73b2301c74d23cf31d9eb1de6f1",
    "4333eee006cf3efc7d2ec2e5573eca9d502507cd3e69f83e6a944bcb62c7ff655fd33a5394bd67781c180caa",
    "231975e035ee8a198226a4a0bfc9b99b262edb6b17dafeab232b7a38e44822e7c02b0daf79033828547be848",
    "e5fd546f4de1da56f4c5c7b4c46995b52db441c7b9428b4de4c68c914db9ef8c83cbf6d23bb3a838d1d8764d",
    "c66c86b2df068164345bbf2c18c3571e83498ec487de783a4080dcd2626c369da86aee8945fb7785bc883df3",
    "b85005d034b88444385077982f9288982c9fc6bfc1ba8f1cce5038efca6750c5a6eb913e")
  /// padding 8 bytes short, 8 zero bytes after the digest.
  static let digestNotAtEnd = joinedHex(
    "a5bd2e09d6c9679da508808dac603383abfd60dd37b3d9e0959d175663b6cd9c4fe6624b200b6cf0365f2c39",
    "de42774a53d4527131588c199ee78657ccf6c39ac034a31b896edd96317a8560027cc85ecc273f47922764eb",
    "3fde3d75820241400627c58ecd8a0348d15c1f7d6e660f83b7a33d994f7d340ef1249afa2cb4939185806a1e",
    "87423bbafc4b5f79c34a2f76ed2429ba0a18815b4a10f865ec9cc35b77a73fbdf87b9a3006e867bbc24cbd3e",
    "68d49277e5a0a5340996d8f975c64226991d968e4511af8625dd30fbc2dfb873a4928c201211a7a3065830e9",
    "86e13cc00d51c823fa7678f85a7d15f23f2c1b99fe51664eb10cefd8d17ddbfd806f9f4b")
  /// 00 bytes instead of the FF padding.
  static let zeroPadding = joinedHex(
    "571da46d3b7d2e5b2d1f6e04852cd6e0916871a86d727df51940706f5af06dbc07703baa80b5cada7e4d1f05",
    "369a9c7535f6bd51784cfcc68cb2ccc0e8eef905ba7fbb22208abdb3c2241985c1f903a7b599fab47eee3c95",
    "c10eb7a9a5526c41153a3049b2fee26f86e7640706acc6b791a8bf277259c44e36b9ffd2332af0d2e5f109fa",
    "6f8ddd0ebc6d0c4f13295e15f4eef1e85a4e23dc862e3c8c14887b7ca4d734b912900506e654a6c3324b5906",
    "c2e29d656a23176a45fc476c4798c69a84fc0be700288f9acb58f78a33c5c112ac4fa231424e3b536f2f7022",
    "f27f8a4cc4d69ff0374d757ae032edd3619c8c6d1b1f00eb2070d57a450da095807b0a2e")
  /// rsa4096SHA512's key signing the SHA-256 DigestInfo prefix followed by a SHA-512 digest.
  static let sha256PrefixSHA512Digest = joinedHex(
    "1cb1bf1868d878b2b21ec1cfd4fecfe8483ac76777771cf9d2d1440e4cd16c84be82db82606e1ae8e48d0a94",
    "0427cb95b9e5ebf46fccf4b8945057d1ff17dbe0d4db9955ff0ff3962977d84f0d250a96ea8b9081f7e433ed",
    "d161c45c3ad82ead9901fc85276a670e82ceef1b7cf806bfc75bd63748dd3b91ffabf109060a1dd91005f6ce",
    "f6b749db5ac5db4657f159932bb1605725537cdb0899e9027dc1d2a561a14d5649e860deef6e2d04232e8aca",
    "a40361a7e4d2026a20316f6a4989ad471cdba7056aae9535017ba8a1f7c902c95e46229d546d316659ffd89c",
    "d6d2527716506d3c8c2fd6d28a3732d7bcf6b8e5e61aac4c94e850db8824e86e8eabfe76f0772a00e7ea29ca",
    "d5be2bce0b746e8a61bd03588ea282e2962c2a30e03d84961863b0dce07d7a5de36e57c968f322202e3d0556",
    "aa02d26db4694292c8750e17311dd024416dbc196b53959aa401200ff765489883211d854f27dc644cba5b1c",
    "2efe937ec6967c9f86f2a25bb73ac07b85adcb9fb067d358f9e0b71fcf0fe99c38e0abd7ab2c8d1821da1bec",
    "cf6c91523b7aa896cfa9ab21973a9183ac76ab4ce9d8860ce1215493e8a9f86e02e28706a6b2c9df75f8a583",
    "1f9a66d851e59f7ac68c6378a5c8a1e6ea0b799a19b55aca3abd40b5844af7ea852551cbda55d71bc1dbf3fe",
    "b645cce3b8ad51e722a93b81c477a8ea218220863935e0d1983b014b")
  /// rsa1024SHA1's signature plus its modulus: still 128 bytes, congruent, but not below n.
  static let signaturePlusModulus = joinedHex(
    "fbad140ddbae5de2fc9d92ac0792e17d156a6f8a53963deedc14fa65222ee40c671e15e5453e6e5477fecd12",
    "3a324bb7b362ca255a7168129be8ecbf523931d84089d9ec2da283eb2fcd7ad72b3507d08f197609d5f13117",
    "e52dc0a53ba62dfe8edac7f4e9ba2bf68b0ff122bd3ab0888cfad689fe906b4f8b30c06057d58bac")
}
