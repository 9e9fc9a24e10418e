// RSASSA-PKCS1-v1_5 verification against a selection of Wycheproof's vectors (files
// rsa_signature_2048_sha256_test.json and rsa_signature_4096_sha512_test.json of the
// Wycheproof project), each named by file, tcId and comment, with its message hashed by
// this module. Wycheproof's "acceptable" legacy encodings (DigestInfo without the NULL
// parameters) are refused here: RFC 8017 §8.2.2 compares with the one encoding §9.2
// defines. Its "acceptable" small-exponent cases (e = 3) are correct signatures and verify.

import Crypto
import TestSupport
import XCTest

struct RSAWycheproofCase {
  var file: StaticString
  var tcId: Int
  var comment: StaticString
  var valid: Bool
  var modulus: [UInt8]
  var exponent: [UInt8]
  var kind: RSADigestKind
  var signature: [UInt8]
  var message: [UInt8]
}

final class RSAWycheproofTests: XCTestCase {
  func testSelectedVectors() {
    for vector in Self.cases {
      let verified = verifyRSA(
        signature: vector.signature, modulus: vector.modulus, exponent: vector.exponent,
        digest: rsaDigest(of: vector.message, vector.kind), kind: vector.kind)
      XCTAssertEqual(
        verified, vector.valid, "\(vector.file) tcId \(vector.tcId): \(vector.comment)")
    }
  }

  // Test groups' moduli (leading zero byte as in the files).
  static let wycheproof2048Modulus = joinedHex(
    "00a2b451a07d0aa5f96e455671513550514a8a5b462ebef717094fa1fee82224e637f9746d3f7cafd31878d8",
    "0325b6ef5a1700f65903b469429e89d6eac8845097b5ab393189db92512ed8a7711a1253facd20f79c15e824",
    "7f3d3e42e46e48c98e254a2fe9765313a03eff8f17e1a029397a1fa26a8dce26f490ed81299615d9814c22da",
    "610428e09c7d9658594266f5c021d0fceca08d945a12be82de4d1ece6b4c03145b5d3495d4ed5411eb878daf",
    "05fd7afc3e09ada0f1126422f590975a1969816f48698bcbba1b4d9cae79d460d8f9f85e7975005d9bc22c4e",
    "5ac0f7c1a45d12569a62807d3b9a02e5a530e773066f453d1f5b4c2e9cf7820283f742b9d5")
  static let wycheproof2048Exponent3ModulusA = joinedHex(
    "0090a5d7aba2c8dc828e616fc1fc45c7c52130c8589dcbe2913da187572f6c23217b89a5186b6f90cbe053ab",
    "fb0885a91f141dbe106ce6ad303904a5941df26ced10478cb56a7bd6cf1313c4966d9cf7c4509d9dc63566aa",
    "323e110af219f3398c04e79bb486de8703793473136f5c9051af24bd2c0208ea1bf9321a3e8f24af00aaca12",
    "16842eab248d58cf46ac786c49fd3ca8557e9b53993a4b9718cdc5c474bf1cfe58c07ad97b2c5acb7d86accc",
    "0fc7bed147adb2e77b8697d80150948117714b806ff76f9d88147d84e93987b724bf4870429e85a7a7b51486",
    "a78d8a88f1688f60e215d43d06221e2b993b5c12a607b80e9e0122472b29945f76b55737c1")
  static let wycheproof2048Exponent3ModulusB = joinedHex(
    "0092bf17cdbffb42fa9957ce37826bb451708e7cdec8752b809c81a8d16fe5fe4dab6a9db6d11dbb12086645",
    "db7546642b322e8331dd7f29eff68bf40b24f80884f5152b1fda9b9f7ae2fce2721cdee0fc48f85a6e8e64f7",
    "67ed9727fd2dc597967e276a5e2e768528afdd9df4b6ddda4c174300e4da3c19a3c32299e1e7857934c14dd6",
    "203d8c2671289bc392711597155364a59046b2b9f1905fe717ca7efebb4c1969b804118effa240c11ebf97cd",
    "68c2aa19c787b3be21e68c0e397c7f04c6ef98950e27e0e19a40da92a3ea10800fe9252b77026d14c2fa1eb4",
    "ac102491e5773279f07d856d446f45169b09bf60b8a2695f5e4864eaaf9590aec8c7c2f86d")
  static let wycheproof4096Modulus = joinedHex(
    "00c9a765c2661b4674cff3480e9a5e462ad0ad2fc9bc6fbef62847b3113d20991f653967971c28252753f5fb",
    "acce012c2a8ab592914d269efafa724fa4b920e340930c106f7b36f79cebf0e62e88e0e476888e9f0e22186a",
    "cdb6c4523a232b65b4ff2cc22dc44f8a559527d79d7cd7dcf3773212f7bb9aa133c31165cc663690bf123d73",
    "923c838929ccafee59d6c7095b8d4a74baf2d192c9a4e87c4e12bc58013078b28a7789e82e9f31de1f4d6a2a",
    "a6e80632be8e4bdf263e8d49b09416fb19c488c07ad8af722ab79182b23028a71e065d02412a9eebc46d7d8f",
    "4e03d79238d8c0cb4a97a9a1200ebb6ec64042ebeccad9567526eeef12c17d94c1049c889970b96e94cc3531",
    "72a268a49c5e8bee13c15b39dec44f2c7a1aa37a7a0b6f72290acada32b1d8af1fc3dc8a89487ba81347cbeb",
    "1350925d30f923958106b49959c871e7c1dba55da0772e362cf8621d78610868b894e16e5dfec96874a93a4c",
    "f379b47e7e318ce315066d70ee3938140a60148f205085cef8a7700ca3c53d52a5756a63b3b16f153062b612",
    "62a68496210c8be4ef3f9029ca0ea0e3b3a0d5d6d226edbbf44daf8f045dc286ded3c4ec4db6b45347079f33",
    "eaf98e3c95b4b60e79ef4a3093feec543703422ba74a118511c2193b54fe8b633866ed2c705ccbc6e7d9d365",
    "6809ec3d3356e7400a9648ec37505041e3e31af1c02eefe924a67047d3")

  /// A case of rsa_signature_2048_sha256_test signed with its first group's
  /// key (wycheproof2048Modulus, e = 65537); most hash "123400".
  static func sha256Case(
    _ tcId: Int, _ comment: StaticString, valid: Bool, signature: [UInt8],
    message: [UInt8] = joinedHex("313233343030")
  ) -> RSAWycheproofCase {
    RSAWycheproofCase(
      file: "rsa_signature_2048_sha256_test", tcId: tcId, comment: comment, valid: valid,
      modulus: wycheproof2048Modulus, exponent: [0x01, 0x00, 0x01], kind: .sha256,
      signature: signature, message: message)
  }

  /// n of that key (its modulus without the leading zero byte), which ends
  /// in 0xD5: the signatures n, n − 1 and n + 1 are written from it.
  static let wycheproof2048N = Array(wycheproof2048Modulus.dropFirst())

  static let cases: [RSAWycheproofCase] = [
    sha256Case(
      1, "", valid: true,
      signature: joinedHex(
        "840f5dac53106dd1f9c57219224cf51289290c42f20466875ba8e830ac5690e541536fcc8ab03b731f82",
        "bf66d83f194e7e180b3963ec7a2f3f7904a7ce49aed47da4d4b79421eaf937d301b3e696169297b797c3",
        "2c076a12be4de0b58e003c5123051a84a10c62f8dac2f42a8640008eb3c7cccd6760ff5b51b689763922",
        "582845f048fb8150e5a7a6ca2eccc7bdc85349ad5b26c52137a79fa3fe5c29ab5cd7615013219c1941b6",
        "708e9c3c23feff5febaf0c8ebca5750b54e3e6e99a3e876b396f27860b7f3ec4e9191703c6332d944f6f",
        "69751167680c79c4f6b57f1cc8755d24b6ec158ccdbacdb23107a33cb6b332516c13274d1f9dccc21dce",
        "d869e486"), message: joinedHex("")),
    sha256Case(
      3, "", valid: true,
      signature: joinedHex(
        "264491e844c119f14e425c03282139a558dcdaeb82a4628173cd407fd319f9076eaebc0dd87a1c22e4d1",
        "7839096886d58a9d5b7f7aeb63efec56c45ac7bead4203b6886e1faa90e028ec0ae094d46bf3f97efdd1",
        "9045cfbc25a1abda2432639f9876405c0d68f8edbf047c12a454f7681d5d5a2b54bd3723d193dbad4338",
        "baad753264006e2d08931c4b8bb79aa1c9cad10eb6605f87c5831f6e2b08e002f9c6f21141f5841d9272",
        "7dd3e1d99c36bc560da3c9067df99fcaf818941f72588be33032bad22caf6704223bb114d575b6d02d9d",
        "222b580005d930e8f40cce9f672eebb634a20177d84351627964b83f2053d736a84ab1a005f63bd5ba94",
        "3de6205c"), message: joinedHex("54657374")),
    sha256Case(
      8, "Legacy:missing NULL", valid: false,
      signature: joinedHex(
        "095dad1fd82bcd36652a381b7f4dd656bd89b40aa58b56da4f6aa8247874b935e65d2b86752d537df710",
        "3884d39dd9ad3d65f87404526b09094c5615c6249979b0dc58d2199ae8696a5b76b4bb03eaf08c2ab6ae",
        "c686c6b1b289c9b44f648bd30cb1ac6a64a73d68e59cd05e7aa1b780f4bfd7b83dfe3b884ec11821a93d",
        "c5bbb47a00eea4557b6b96b5656276001f1f295ddbbbc511a99b9a665b9c2674c8af0d812286d0be3ce7",
        "4817ba2cad283757de35dfb149f2835f60cb03ff155524a57f78b148feceb84cd20b0ae22e3e48f433fb",
        "d9bfd60be8afec93165ee0310be961d3695f309d031320c830aa6ba08b5a51d943797097c57630be391b",
        "d23736cc")),
    sha256Case(
      208, "modify first byte of digest", valid: false,
      signature: joinedHex(
        "22f31138d107f7f74ce012c46e9ac322874648bd1e3388d588098e952d7273ab97d1d17f265485eeb2ab",
        "0521b91ce47cdcb74342571e5ae103d228dfc1b967aacb0d4afdee4bbcba330abc3ad445e0e7d94ef39e",
        "05b4db732240af7ef1538859866750a039697abb79ce91d377a9907271ba865a64d57c4db4ff886e4e9b",
        "157d3e9ada5eca127478483fc7548abc1aa27f8ed088dd437ffa9d3959dbd8768b1d1c35c7bfa390d9aa",
        "6e8554bb990ac89da7e49b4bc086438be7670a5f9b1871491e2ae8a23f06ca3e7b87a7fb87ed0bb5e6fd",
        "64ad6f1af7b8514115af4e9ae53e35ebe90a5912c45d6dc3aa4b9c7c46a3b4d20ec48a7fae3a5ef8981e",
        "965dfcef")),
    sha256Case(
      212, "wrong hash in padding", valid: false,
      signature: joinedHex(
        "16b5347808defc31a231c28edac36a3f1789d4c549e8f5c71e2fcf5d5304ba437b4c7c0eb7ffbd80f5c5",
        "b2277bf24412b39ee3e74c368517717c438bb88b80b12ad14f7295ecf8841947e5e7457e66d2f869c30d",
        "28e9ac2019d7e5eca6229812b649c8b6b4ccd4e17b254e7ab496aa5325525e7974be348dcd53c652e631",
        "5e670236bbbef2f501e246631b735c50e388ea3af8bb0030fb7fba9743eb70fc6687cfdb92d46a4537ce",
        "88dba96ef52744e22fb7257af1538e3ffc4e2d9ac9101d6f71bc2f5aab71ddcc73a6c635500fa0a9174d",
        "25ebcc85dcd7dd85a7d2e8d3138effd171176bbdf23296ba3df630ee42185720ec141ceeaed1681a6ad0",
        "c156e099")),
    sha256Case(
      221, "using PKCS#1 encryption padding: 0002ff...00<asn wrapped hash>", valid: false,
      signature: joinedHex(
        "46bbab5068ebec737454655b811dc71877f4b5cfbfd90b340dfe549942d2493114873470f91f1bb342a3",
        "9c0bf614268e7bc9f5a68543d57d8ee14fac4b3abffc27bb8d3dbde46ee6cd171b5ea32881f1d037e67c",
        "af954769e416c8dea94b7b4d71af3aa2ba321afb997f2120c1ca4ca53583d85a4ffa13552120ae24dd41",
        "c71984becf4aa9234ba0a5d9b918c6bd12a85be40d0e390b88150c1635357e891bed185482420bcb2c4f",
        "88f21927f4f8e81fc96cdefe82e735c9a34708d5f225e462340a4c71dff89da993e821972b8ac963aa8a",
        "73271e602c6f23ecf1f696bbfb3a2bea774b1c058cd8a3fbd8a4a73ddc31a607c9fed0052e3f78766f71",
        "dce75773")),
    sha256Case(
      225, "invalid PKCS#1 signature padding: 0001ff...ee00", valid: false,
      signature: joinedHex(
        "4b140acb262c451b0761236b926afa2829e8a095828f7dcf196eaf7fa46fdcf7fbcaf194aa3000ae8d3d",
        "c7dacc26952502b1558a67fb692da5fcc7dbf48cbc5260e2b2a7041fdf7bf46f531d4ef48998dfcb65e1",
        "82065535aaf182ae6abf6e819e7d96ec86178137a3c14383f89438ab35f0dc7698e1811c415e163f8bac",
        "5435dddba5db55aa6b393d538d31b34332fcc34ef8e6eb059d4cc453297d6895ba480593a5536a4e553a",
        "55417295b6f6798734df67e739e54d3092de4f476cc0f65aac6950631081df1116097a7f6a9d00a1afbe",
        "0ce6b2bd32ef22acc95219f05df9fb7e9a8b391e6277cffeda298bf094730f5663172183dc5842056de3",
        "6137ee90")),
    sha256Case(
      226, "PKCS#1 padding too short: 000001ff...", valid: false,
      signature: joinedHex(
        "7c408d5f2efcbcc3f1c6c2a7f14eab73124910f21e4a4b90a782ec8ee5c72d6e84c43bf76fab6a4953e8",
        "0e712d755489446130b46dcf8649a316868aca5334afeb7c957db77940e93b4241cdbbfe2a0a31a2594c",
        "93afa016ea3b95c6c4af1d076f7d7c1e6d66e3267eb05aa4b52014bd8d9e83f0183a9934963b4e477817",
        "6f0ab8fb18c327da3ca10c03797faebb4a0b862746bf19ce76ef214507db80b3497e6b2bebd98087029c",
        "458389166364c1a81254e8684b37209579c8d32c3cb02ae6e319e12c30c84422df2e82f99fbe37864f6b",
        "add947b4785011a93562de2a55c562335afa67b0853e725f2c91f0f49b2a28bb32bd179d928ec37428c4",
        "1bf631cd")),
    sha256Case(
      227, "CVE-2017-11185: signature=n", valid: false,
      signature: Array(wycheproof2048Modulus.dropFirst())),
    sha256Case(
      228, "the signature is 2 bytes too long", valid: false,
      signature: wycheproof2048N + [0, 0]),
    sha256Case(
      229, "the signature is empty", valid: false,
      signature: joinedHex("")),
    sha256Case(
      230, "the signature has value 0", valid: false,
      signature: [UInt8](repeating: 0, count: 256)),
    sha256Case(
      231, "the signature has value 1", valid: false,
      signature: [UInt8](repeating: 0, count: 255) + [1]),
    sha256Case(
      233, "the signature has value n-1", valid: false,
      signature: wycheproof2048N.dropLast() + [0xD4]),
    sha256Case(
      234, "the signature has value n+1", valid: false,
      signature: wycheproof2048N.dropLast() + [0xD6]),
    sha256Case(
      235, "the signature has value -1", valid: false,
      signature: [UInt8](repeating: 0xFF, count: 256)),
    RSAWycheproofCase(
      file: "rsa_signature_2048_sha256_test", tcId: 239, comment: "short signature", valid: true,
      modulus: wycheproof2048Exponent3ModulusA, exponent: [3], kind: .sha256,
      signature: joinedHex(
        "000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
        "000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
        "000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
        "000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
        "00000989e7ff72e67e680bd21d5f966e4ad8a48c3592dbacc4a2f035b4ef4d17a2f25f8a9fef7e78eb99",
        "d76d68629ed02d67c43c4b7ec8c3badc32e3d0a524c326537739b0fde156723b27c23ae2b09895e470c6",
        "4d700f5c"),
      message: joinedHex("33363730")),
    RSAWycheproofCase(
      file: "rsa_signature_2048_sha256_test", tcId: 240, comment: "signature is close to n",
      valid: true,
      modulus: wycheproof2048Exponent3ModulusB, exponent: [3], kind: .sha256,
      signature: joinedHex(
        "92bf17cdbffb42fa9957ce37826bb451708e7cdec8752b809c81a8d16fe5fe4dab6a9db6d11dbb120866",
        "45db7546642b322e8331dd7f29eff68bf40b24f80884f5152b1fda9b9f7ae2fce2721cdee0fc48f85a6e",
        "8e64f767ed9727fd2dc597967e276a5e2e768528afdd9df4b6ddda4c174300e4da3c19a3c32299e1e785",
        "7934c14dd6203d8c2671289bc392711597155364a59046b2b9f1905fe717ca7efebb4c1969b804118eff",
        "a240b8bf4bb1a6d0616fd5be2f081dc9ef741a9a4ae7274418b791432de470c4556463108388e8e8ed5d",
        "cebf3558e4650c2ac97c86fa682176f09b5dd8cfbf15d19c3fe4f961f4607c12cb3dfad9b6a0e59c92fa",
        "a1fc8622"),
      message: joinedHex("32353934")),
    RSAWycheproofCase(
      file: "rsa_signature_4096_sha512_test", tcId: 1, comment: "", valid: true,
      modulus: wycheproof4096Modulus, exponent: [0x01, 0x00, 0x01], kind: .sha512,
      signature: joinedHex(
        "9cd28bf41b99fa4df2852d86536257fe111f63f01815146c057dc3bda9b6633e49495d38822392b6b901",
        "e6ac69c4f09623a524e49246c3710c85a1957943d89c8399b0c2a649938bb07340f14c6981a0da0fd351",
        "63bc7eedac80ad1cbf06a4c32a4a08523554256eb221395c76e1f79a5e3c5b9636673db3ba27eebf8315",
        "468888671f8441324e092124df31d396ad8367eb7c9d0afa44dae85d56208ba21ec7c1f0ed6a3678f5d9",
        "7ba7089422c662d86cd514fe853f38481632197c1ba07e4d92735eef3b75afc25ffa900769c74ba34f2d",
        "157e74bbab64cf413bc858cf6c393e8afe24f9e71168e97db96717d0081d88a27257d8c692dd0e001f3f",
        "dc2090512550ad38725c10a201fc50f8dc89ecf363b4d21a7d815eb78557d42e657cb44bfc785203e8de",
        "00f9e18af1c8e12953a33b0717af215d9b04b71fc320bdf4d558faf55d03d30844237551e35ed6606bc7",
        "06ca43a47e6c493e14719049065eb8e00760283ee72c1ae3ce019ce3263a90b8340d1a47b49b78d5cae9",
        "602539b379186e5c1e847b69c75152036c8d9ef3c77ecd151bdae7ff36a459d0bbc1dfa33ce3dcd94ee2",
        "cf6ee08a77485746306ed987eebaae2baa544b543b5afe143e4122ade5adfa4fd463a246f29482dce7a5",
        "1573aa18fce87f7edde842e7f21ff9e40c4101b922616ee4c14ea1af3c4d417fe8876af381027d837fc4",
        "0dc684e81b9eecd4"),
      message: joinedHex("")),
    RSAWycheproofCase(
      file: "rsa_signature_4096_sha512_test", tcId: 8, comment: "Legacy:missing NULL", valid: false,
      modulus: wycheproof4096Modulus, exponent: [0x01, 0x00, 0x01], kind: .sha512,
      signature: joinedHex(
        "47dd8953f9fef033d428958a32a4b30983d7eb9950c3d9acd167d50d9445cafe2bd02f44db5f7c5f6f99",
        "9d3e1cae5b7458cd3220034132a3195481fbe5ba6b878d85c6f8ec53769f28245dacf66b562bec123999",
        "19265b3ce99c5f2217c3f5b33228a7300a0e87174675b379ffcd8a048467f04df2b5b7a7b8e3b8ffeb2d",
        "cd408a9363891518988a2a09453e98f7cd73aee8be03acb0bc8d67f7f944b62a717a7a5dc9869ac3d30e",
        "7fdf68cef439eabb8220c6923016f00b353ce5209ace5d387a7f50dbe09a7d2e521f1ce57251c4888322",
        "9dfcea220e31810aff68da93744715f0720d49d8a5f3df2ce56d8fa42c02300729e8099df6e8d39bcfed",
        "502a5ef910b024e09031e141266e5493e64202a77c661da8c363f713b78247d8962b271e6ce968810775",
        "b6e76b577f01c24daeb7f765e9aa0118168103a51870dacbb4144389cb0e221e6529f9692005a2828e68",
        "936c339c96f7bcb4ae61494d03a3ff46adde34aec671b5aaff2fb61dc6011f53f9dd9a19bb6f0180ed90",
        "a4ed44ec0ecf97fc50c15607d1c6e42d35e36526f3a39278a7afa2601ba7610292bd6f04bff85f8c4f32",
        "f32b42379085b461eaee65de85ef2fbdce1d0dc39120f5670ee2ba5b12902878d2eae39290909dc55d64",
        "d1d6b03cfb4b144dab9e7bd8cbfe8500576e1a9f300818abce002ffedb4e8f2f0f58eab36f5c81929b50",
        "578d4ca3626b87fe"),
      message: joinedHex("313233343030")),
  ]
}
