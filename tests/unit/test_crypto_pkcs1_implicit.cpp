// Known answers for RSAES-PKCS1-v1_5 decryption with implicit rejection (decrypt_pkcs1v15_implicit,
// src/core/crypto_private.cpp): the test vectors of draft-irtf-cfrg-rsa-guidance ("Implementation
// Guidance for the PKCS #1 RSA Cryptography Specification", H. Kario), appendix B: B.1 (2048-bit
// key), B.2 (2049-bit key), B.4 (4096-bit key). The 2048- and 2049-bit keys and their ciphertexts
// are also OpenSSL's own known answers for the same algorithm (OpenSSL 3.2+,
// test/recipes/30-test_evp_data/evppkey_rsa_common.txt, keys RSA-2048-2 and RSA-2049, the cases
// after "FIPSversion = >=3.2.0"); the values were taken from the machine-readable copy of the
// appendix in RustCrypto/RSA pull request 680 (tests/examples/pkcs1v15_cfrg_rsa_guidance/:
// test_cases.json, k2048.pem, k2049.pem, k4096.pem) and checked against OpenSSL's file for the
// B.1 cases it has. Every B.1 case is here, a selection of B.2 and B.4. What each block is wrong
// with ("what") was found by raw decryption (m = c^d mod n) when the vectors were taken.
// These keys are published test keys: they protect nothing.
#include <doctest/doctest.h>

#include <cstddef>
#include <string>
#include <vector>

#include "core/bigint_modexp.hpp"
#include "core/crypto_internal.hpp"
#include "paywasm/crypto.hpp"
#include "paywasm/error.hpp"
#include "test_crypto_keys.hpp"
#include "test_support.hpp"

using namespace paywasm;

namespace {

// draft-irtf-cfrg-rsa-guidance B.1 (OpenSSL's RSA-2048-2).
constexpr char kDraftKey2048[] = R"PEM(
-----BEGIN PRIVATE KEY-----
MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQDIzIOXFAmNpWyq
I2QPk9yJl8FjcpaPwbDG31ETwclOiyHkitIpfmVBkBG05tj15zsbeLJXQAMh0e9r
YC1OyM6NFByUkF60rTBmOaSSBlNLbn8mB0I+l9/9EzyI1yE5ne+8fpbM3L1/Oq4f
6JJxK/tJKYF9URZmRAofrLeiCPXqFlkQrdij8tSXICNgzLYyAk8NBxacGRjzFveU
sUOu9U7IdSKkwCl4+WiZgL/79knDB+gYGb/4hAljjUi9lL4VK1n/ZJ+gvWKdD/oY
E8Or9LVr08LqVGXf+hRYkpKp2KJK0mvn7gUQdBtjgtQ8g9W/pApGYT0GK+RFUX28
rwy04adpAgMBAAECggEAFFUBDg8tWHZjpmam/xzNu/Dt2BAGRtAqAjkikImSxK05
5VZZKXJu9lCMOnEVjvC2/3UdOdB1gLstLwYyEEQtBgP/UNu9ezX+LJuxmkehr4Wk
wkkB4CyotYt5GbIO3zKqz79RrbS8S2G5t+loyqTVcPcO8Y2AYyKIk+R9Q578p5Ml
m88s0Qij2GiM3weOeseZlp8jOdLB9SK5aWhGKakzuq7CaBYl6rhPTlb0RH6diPua
GZz3ECPg4lexREGzPITTvGfKgDHSYSYYEDp6CkCEQmL3XYiQzWFuUfkDVIj9bgmd
6P9tZaT/EYJUgHyfWNL7uouhUdyMaL40nJd6IE4EwQKBgQD49a1rqCiTG+pFm4o/
bcBB0jSCQJwlcelj8x90hgKiVjcbOIPtRZ7PlwUmRZ7dFuBVIvWkXZR1Gy7C2vJy
x/iBalLADRgIAXFjTaiZ15cyIvUbk3YwVIaWqffYwkpZSXwe/NRVz7l+6G0rbTSX
KzMv2jA/BJmbTra1zAuzPndh3QKBgQDOei47SakLljMKEtxoK9+9+66N1twDthR6
771XV0Pw9tpNhiNQYbca/ZytLTQCXlashrD3dD6zXhrLyiN4lUJEZbcG7SIXXlcY
yMcLZwPqj2tRD5Rb5I5aNrs8PJFzK1id/AXXLYCQMZRFK9ohNIZH7HKUPxGoRuYv
rr6OtTaw/QKBgHb+FfGK4jnN8d9rRFykvGu5aNeIwhkzpPXc0oADPWcSBizAim3y
BMH70L5GMHRD5t1KZFY3VCnU4DjKJW+vHJvekcaxe3b4GZX5HEjLvrx78ONJTAg1
nk6M1qWH17ltYiH9fg+1xVdfCC7ld2l5gHGyu7SjIjgVG0cxS7ZUeQMRAoGBAJmI
SLBVSZoQCcvH0pSzax/98gIObnNkBT6U3hoADck0BYf34nJ29ozfYI11O2M3ewO2
9AhNLAJ8SziWCmIzup7Zc4t28Q6nW+RWB4v3AfZ8xrPz/cGG5kM2x2s3LoCRDsgL
CtzCPQL7muEEhqKCSAdbTqflbd/POILkUVYUcaKRAoGAZDv3RkKffYNmegZTAhNH
77/AXmNR+CGp3rtg4OzN5QBa2ensMeVY9+ksKTKOdFadfO98dMq8KzVe1AGhoJFL
Tjy7BkhOWBlgURae0UyqLvpuoETgVNJhRMwWKcVQEFWKBOEz9Et8JE2sJb+RPFe4
kO5J9UglnNY0BP72hZ3Pl1o=
-----END PRIVATE KEY-----
)PEM";

// draft-irtf-cfrg-rsa-guidance B.2 (OpenSSL's RSA-2049): k = 257, so the length mask is 0xff.
constexpr char kDraftKey2049[] = R"PEM(
-----BEGIN PRIVATE KEY-----
MIIEvwIBADANBgkqhkiG9w0BAQEFAASCBKkwggSlAgEAAoIBAQFV+IlVahd18cen
eGpQsYvCjJ6Ybt5WZ8qzm4QSTpDrp1wdsIOsPkQ7upTcI1YPdeOoFpOipDvcdCbY
xOr+aMhd4P51f25Ju57UR+YCQwgA27BM6yLn+lehjTOPtmAmzbRn5wzAQOfTZ+9A
PHvx499iRlAJRjHyHq/S+1vJFf8EN5rNERL3MsC0ZgfBeNOKIPUu2lCfL5wEBdUQ
aegMz5QVVNBHBGdQXDz1QeoIl9/J9ADOyymP/HUzctn2kzrxdMxA7ZbUZwMXM7l/
jN3T+SvDoD6oV2xBfyQAe15PdQEQW1RN6frc3/rfmN+0uwW4GZ8/haz9kfepoJS5
o4P1BJCXAgMBAAECggEBARnCs/UKetYVJnnX/1EJWKwtjKbwAoWS8zLVWhZzYXio
5n8X5wXOMA4+h1RyUQBgE/l00KPbSe80TKWiajTARQcE0OQi4M4jppQlwV/vtvJu
EG7v9kzIuddELk2k6MhQCOrrNlhZoilPo5N7wmvlYzLn2B4sFg72NcxSiqe+VeYz
pyPbweFrop5SsprvL55WVP3AZmuw/CVKy+gOY4dPD18CB4Ljydz8JSDQycSntjTk
UD+7ST4ar+6z+IvXoTOYcl2ub+OZ53XNXUzwn8g4NHxMmNqxpIg8zmIFE2Fa+qEK
YzaObXt530FmqxYnOe9RWkQC7h4GAcWlW8cd8OMO34ECgYEBiPaTYPAeGNmi3ilS
U9JSwx5Eds6l/3v4QT33/eNWUjzcl2gF+E/A3ex3DfBs7QZcgRNIdUs0avFpdWh3
/Ts9VoaCyHh9CzFO9qxn1l6BMzmLYqCDwPh2XFrUDVqB+bvc4lJ+1+lQCMsQKctM
q9H56b7fwobJZVIlXafqsZIXjvcCgYEA3sfPEdreg6TEPS+AGX8h/V1G/Ve0MfRP
6Bod439qCR/8BGTtlx3IUIg1rebMX1ZvOWVhOos2eYyS5uI/Uu+QfpVn40G+vFM3
GJYl+76rHzt7P5L/smgebvWnhKjC1498LYmqqiTSztvQZoHP5lw2x7+jxboTUWIi
LvXC6RTJg2ECgYASCT86c8rt2Q9gowTkVAL4casyyMlVsJr0Y6O+Q3Dy1VhKmrur
af2wMepE+YQGXQRh6ECrIYiGYA43FVRsiwuFrSbTjLQwj1LQf5lEfZHwh/Od00A4
2y6TjpetBTpx++1ndeHchxjlTmyvfmVGfZy63cfnZchYniyY39wlyk7KgQKBgQCM
zmE0ec+WCPf3bCRc+Ru0ldYeneZIhJBUtN0bQxbz+YFCDcCVeL95Fv5Gkc+ummTm
NAuGAyNFI/Jdd7ZqZvw+5ZOp8Y3qXfY+1fff650gummlvvVZ/7DslNtyX2/26ruj
1JVHwMp08D4B7B5JDROaoKeUe41mLM5KPA8bXoYXQQKBgQD5lZs0xLyozkiIeBsx
sem12K310NPj7VReg2fT+FRbpkQyuIcwNe+IHCvN4A0YCfksQNh4N7XE+az0iza4
3FOllWGkVlI0AtHo+jrzAOVMkbY+bO4G/m3mZvOSlYKgPh9FTneJ+weBpNb7tSbv
iBYh/R6s0hRm5M3Ziu0Q9OdveQ==
-----END PRIVATE KEY-----
)PEM";

// draft-irtf-cfrg-rsa-guidance B.4.
constexpr char kDraftKey4096[] = R"PEM(
-----BEGIN PRIVATE KEY-----
MIIJQQIBADANBgkqhkiG9w0BAQEFAASCCSswggknAgEAAoICAQCP3jlT5VxITxxC
Sq7JA99vOdMNsWBSloAaGC0650aOGSezhv550foWGyiU+Gixo3XzGcMGs7vaX8tF
oROlVw6yRzGAz+ERn6B8JeRojKJV4hWmrFa8EQfuJDPM6EXLb1X2u4wwDpwDs0IV
c4jUD6ekXTsNEFW0mjw7CkRLcnGXFUFDXj/J8pVveF5cxtFZi5+JwcE79MX+8TEH
8OAW9W11O9svcPFuzHUI0gv1BixcZIvVu0pzVcQpNeKv41ZZW20PNOpynI7JjOjC
f4ebGZx03y4i7jA2LpLznbjcmiT1Ge1a/NHS6BriA//9gCjcAvgdO/Sws7rEJLEH
JQ0gmMBuSt3yaQpOdrejmXNX2Cvz6ewQ16i4hiq8AramcyiRIVHjsfQJWMeirYX7
ZCsrCVRt0WGE9PPUxo/mDIZ3CpQ0IRwNxCwuJO35AqLtTUaFXhRW5l/W/hbVbaTj
yAmd2W57LCFjPh7S41zECRl6zuf7keGbad094Tkm8dr+/N47mAtP8C+Q2YBIEsxO
qYobVlAP/Rznsq6ScUyKagMdKby38EewybvOcN/g4fDbBs7a+Jdp1Y4cFT7ugTet
ig+yHJlJgjbQQYA8sjwAPeZRArmnMsOBvEG+F8tLIRmT9iIG7AV8cVdQ1c0xq2e+
bIZV6kq1pstAEcKJs2wS3hr3oI7dDQIDAQABAoICABUFM5wZ9XdNM8RN1CbjrXg7
WyZzha7bdYEaijVCiHEHpODatwDGmMM1GaNWfjmCOCAaYf/vL+HSwEj+pXexdiC/
PTDkbq6cA59QDATok2l3/JDbOlsFJAL8ACOOxm/YZxeDRJLa95mkzeGDfXj6hpSB
2LhqbBNUu7smn17krEsWXHBC65AOpR3h2Ou2Uu1B9L/0cs7XTzyWMgNGgv9nwaPw
6HAQkP4O2oS85+lXixC+0h2a3WBnph8dU+8+CKZKsO8ZXK39SPGS6IlOh9o2DkGX
QE7zPVEVUfxNTa7RyNeU/7SdHu0xY4glbHg2CwJGXskqsvBEemPhNopkM/xQxUDA
AoJ3HsNbpXsp+V4HjijdV47ncQBPr2O3Ln/V3nVqgJJ88MWqC3kfDMwtE+b8yLE3
RJ8Tqb+Rih0Zr/4AfRNlSZzzmUKbN39f9swLzv5BJMuBhbq2W/019xb+b+Jq/o5p
NgUKVImnvJ+Pm0tFaMHWKE3LHOib3o4D19bVHfkEXXeFwy2Dul/imDwOQqEu4Gei
3mkzIEEA2f4Tl17ta62kdNn73lgpdtEqE0DNq9yQpK7itxRjTlwGQShLzYJaD9bz
TIgx5H+0FIGO4yzO5BJelPSFNg646BpiZsKGPy9PhYhA2UKPvKwbYhdEub3pO4pu
aSn9WE6hFrtphmzrs0+DAoIBAQDJmfE5qhyZdUlhG4a6gCzirXlYRG0LESf5pqJT
IT7nfCV25j7ir3hXqVA3M4zXNDP0jtDUFUlmvs2Iwte4cvybmbnlCYYCaMvienq2
soT9S+wRWT1ituC+xg9w9JAdkrdm55A/r+ioxeAID1OKdlmOtGxyb9vusNvLM/xq
yjciOvx/hYzRTnVme2qVuCfxo3WgFneLmT3KgZqeKI4bklP5ZCiqmtWrVE5JV7FA
5yeuvqt5hpKwnYLCyWpyrX6ZiWW4NoZQEgT7nvyAxlJXsxibhXK0VLIJbFyFOyRF
XzHJblcyFKt2FEyqKY8Uo9vhFpm4YSU2/h4/BRpEbxZ60pPLAoIBAQC2sDpoWubg
FYJ76iZ0rLce+UnRw7fiySz73Pcirky7ohduawM83VuG6MlxYTgTrvNFKQxRt/kg
b9SZmqVj4TCdPG+rlbfh31nCs5o7tIXVwpXJYF6Zw+3XFcVQfs6yOKGED7kvcxlv
c0IogRY7VwL+2uUPY8P2pSubRh46ojCk2rBPnUvAOiywuVp/8ce4vWD4OE9qMGxL
tQCtWcNQc7IloopxD/6JxDvbi3AkLmhnZTwVQ1pvsTLxSftBeDMtBihwyYkzKp2q
LQ77z+ROQjxWNueGlJiyLiISy5OpfzftrEI7HbbRijFfIW1wpBLktjJc+V3TQpvw
81DfPWz7HSeHAoIBABbkhkH4ETtT2DtQtuHiwDYVYNwnGQLStelhhLlP4ybCMDbq
OmXfaxj5PwSls+6UHPo+ZXRP3n/uVsSa64gkdo7sy/E4PaF0aQKUye6JIxToVCw8
J/5Xqfm/3+0BuIPDL1ReI0E4JoFTxvbjVqc4fT75Of9cuGrIZo0SoC04PT6D2Dxa
2/zAnhA/H4FU4iRMXYUKSBTwF9YxFW+0Rz7WRPbi6sNExdKoxiMJ9DTciuMK/8nT
AEFSAZFA8feHwAKLWaOrfWEGSs6P5ThyTNNsoPS4GKhlnbn4NiFi7+F4x9yJzRkA
w9+qunHwOjEr0kIjIN2RGnq+LI0XdT4kJzdXRjUCggEAUs9hOmpyGwNFCXxjACJG
Q6EGiDIqiX9dh7FqyOqvV6Iq8t9JMW65jVa58U37SFjWZvQrZGN7ZuuqOBJ0g+jQ
y4VYrTOJjbZbjrkw4X176SByGz02xIaeqg9xSIKimQC4ng8uh0aqMe3SAGA7Ppy7
e+CnUimL66KFOLY4/6UDXcbPgtcvPixgk58BWdu0B5a4fOuxe9YFUO/0JZ/5u98l
0o9yJ7vzSmmMJIF5TL1IkA3AhXbpaJWvHNbHMK8Wq4MOE8oXCf14SGpyT0y2FY9K
oF305vk2mhX1VgW3om5LYM3jm75lX2g/5vpVDGkjM08vVxumHxwjab4xW3ARlWZq
wwKCAQBbs6Gt0843wVJcNkrQiOTLL8HewV8N9LNf3miAO4/2VgSYyO+Y8xjE/xyt
eQRE9ZKrqKb1L192w7vEgd7+a9vwoLlxeLbV7oUwG+gp+aVt5GNPW05mAgUynsEn
zNrdC+Ng9GkXzygYfky2b/ErNicJfQtoubfCSvcHL2R9Fk6dY3B9FdjkJvfjv/SL
se+aEl3AWJnAnpM3KtjY5qje+R/m6f5NkHvECiV/rCu0Bz8+gGpo4MlFKtsz27by
3NyzfWoQ0h6Fcz+AbrxqdMw3JRLoIRhhlC7XMnaCP2hphOd9exTRJYBvRSXTSyDY
q4gl5hM8H5F0iWcKq25nZYHamz7f
-----END PRIVATE KEY-----
)PEM";

struct Vector {
    const char* id;             // the draft's numbering
    const char* what;           // the block's padding, as raw decryption shows it
    const char* ciphertext;     // hex, k bytes
    const char* text;           // the expected message as text, or nullptr ...
    const char* hex;            // ... and then as hex
};

const Vector kB1[] = {
    {"B.1.2", "valid padding, message 26 bytes",
     "8bfe264e85d3bdeaa6b8851b8e3b956ee3d226fd3f69063a86880173a273d9f283b2eebdd1ed35f7e02d91c571981b67"
     "37d5320bd8396b0f3ad5b019daec1b0aab3cbbc026395f4fd14f13673f2dfc81f9b660ec26ac381e6db3299b4e460b43"
     "fab9955df2b3cfaa20e900e19c856238fd371899c2bf2ce8c868b76754e5db3b036533fd603746be13c10d4e3e6022eb"
     "c905d20c2a7f32b215a4cd53b3f44ca1c327d2c2b651145821c08396c89071f665349c25e44d2733cd9305985ceef643"
     "0c3cf57af5fa224089221218fa34737c79c446d28a94c41c96e4e92ac53fbcf384dea8419ea089f8784445a492c812eb"
     "0d409467f75afd7d4d1078886205a066",
     "lorem ipsum dolor sit amet", nullptr},
    {"B.1.3", "valid padding, message 0 bytes",
     "443ad9c5f00a1f4e9601717d274aacc93a824cb4d99b3c6a42e2b017e52e018443bd77d34a80703cd9b6acf523cd3b2c"
     "d1fea31940a68fba828836f1c3ed2fef071e95e0922ff0f47d0e81dacc13ecdeda3db6476f41e5b3f9ccfcfdf9155800"
     "7b68ffbbe5e93bb088f1e4f0bb39bc7d8600b38930ecd00a341d8cc76955837efff0f0797c4b46fb1b375bba49bcdc87"
     "7f39aaadb045c56b836072383eec6627ae280ad4f9a45d6e5b4cc7cf61d42b194ff0b9c9167c621e5380d8333e3b7f20"
     "c8d564c9ec6c2805f77c0146adea2f688a943b67ce8889f4a6353e6396d551c36a6dbf19359a825d14b69ccc4fd747cf"
     "14a1ca8578d7f0a67dc14b37f5e17ca3",
     "", nullptr},
    {"B.1.4", "valid padding, message 11 bytes",
     "00a2e8f114ea8d05d12dc843e3cc3b2edc8229ff2a028bda29ba9d55e3cd02911902fef1f42a075bf05e8016e8567213"
     "d6f260fa49e360779dd81aeea3e04c2cb567e0d72b98bf754014561b7511e083d20e0bfb9cd23f8a0d3c88900c49d2fc"
     "d5843ff0765607b2026f28202a87aa94678aed22a0c20724541394cd8f44e373eba1d2bae98f516c1e2ba3d86852d064"
     "f856b1daf24795e767a2b90396e50743e3150664afab131fe40ea405dcf572dd1079af1d3f0392ccadcca0a12740dbb2"
     "13b925ca2a06b1bc1383e83a658c82ba2e7427342379084d5f66b544579f07664cb26edd4f10fd913fdbc0de05ef887d"
     "4d1ec1ac95652397ea7fd4e4759fda8b",
     "lorem ipsum", nullptr},
    {"B.1.5", "bad padding (first byte 85, second byte 94): an empty synthetic message",
     "20aaa8adbbc593a924ba1c5c7990b5c2242ae4b99d0fe636a19a4cf754edbcee774e472fe028160ed42634f8864900cb"
     "514006da642cae6ae8c7d087caebcfa6dad1551301e130344989a1d462d4164505f6393933450c67bc6d39d8f5160907"
     "cabc251b737925a1cf21e5c6aa5781b7769f6a2a583d97cce008c0f8b6add5f0b2bd80bee60237aa39bb20719fe75749"
     "f4bc4e42466ef5a861ae3a92395c7d858d430bfe38040f445ea93fa2958b503539800ffa5ce5f8cf51fa8171a91f36cb"
     "4f4575e8de6b4d3f096ee140b938fd2f50ee13f0d050222e2a72b0a3069ff3a6738e82c87090caa5aed4fcbe882c4964"
     "6aa250b98f12f83c8d528113614a29e7",
     "", nullptr},
    {"B.1.6", "bad padding (first byte 78, second byte 05): a 245-byte synthetic message",
     "48cceab10f39a4db32f60074feea473cbcdb7accf92e150417f76b44756b190e843e79ec12aa85083a21f5437e7bad0a"
     "60482e601198f9d86923239c8786ee728285afd0937f7dde12717f28389843d7375912b07b991f4fdb0190fced8ba665"
     "314367e8c5f9d2981d0f5128feeb46cb50fc237e64438a86df198dd0209364ae3a842d77532b66b7ef263b83b1541ed6"
     "71b120dfd660462e2107a4ee7b964e734a7bd68d90dda61770658a3c242948532da32648687e0318286473f675b412d6"
     "468f013f14d760a358dfcad3cda2afeec5e268a37d250c37f722f468a70dfd92d7294c3c1ee1e7f8843b7d16f9f37ef3"
     "5748c3ae93aa155cdcdfeb4e78567303",
     nullptr,
     "22d850137b9eebe092b24f602dc5bb7918c16bd89ddbf20467b119d205f9c2e4bd7d2592cf1e532106e0f33557565923"
     "c73a02d4f09c0c22bea89148183e60317f7028b3aa1f261f91c979393101d7e15f4067e63979b32751658ef769610fe9"
     "7cf9cef3278b3117d384051c3b1d82c251c2305418c8f6840530e631aad63e70e20e025bcd8efb54c92ec6d3b106a2f8"
     "e64eeff7d38495b0fc50c97138af4b1c0a67a1c4e27b077b8439332edfa8608dfeae653cd6a628ac550395f7e74390e4"
     "2c11682234870925eeaa1fa71b76cf1f2ee3bda69f6717033ff8b7c95c9799e7a3bea5e7e4a1c359772fb6b1c6e6c516"
     "661dfe30c3"},
    {"B.1.7", "bad padding (first byte 15, second byte 1c, no separator): a 10-byte synthetic message",
     "006f89db685c0a132700c6a17f88a37a6635d0ab89de4c45dc09736c891ca5bf3401ce34c6e5d51e94ed2f518857ddc1"
     "2d9f9f9e68e01cdc30d86ae5dd83988c0c46a8e39daa1b328a23def551d67fa1964fb15242c83ddd7dd5b1aec720a391"
     "d0b86cb16cf4d3c466850c3df88a3ed85993900d1287a0c90c4b04d34ba29e59967661f3f10e0c998f64e14e777e8e81"
     "371eca5318b4e0b53414292130c821477c51e2bff844836ab10dff293d82e4f40d345968ef268c92ed0bc238f31d50f4"
     "d3f759c23964923e135d15527556410fbd2c451d6a2aa852dc88b01139c6fdd826736d8cd3780601b2977b09c080bd8c"
     "0fa471606ad59f053ad33d9eeb905f20",
     nullptr,
     "2b5dd72df3cae37f1aef"},
    {"B.1.8", "bad padding (first byte b8, second byte 99): a 2-byte synthetic message",
     "1439e08c3f84c1a7fec74ce07614b20e01f6fa4e8c2a6cffdc3520d8889e5d9a950c6425798f85d4be38d300ea5695f1"
     "3ecd4cb389d1ff5b82484b494d6280ab7fa78e645933981cb934cce8bfcd114cc0e6811eefa47aae20af638a1cd163d2"
     "d3366186d0a07df0c81f6c9f3171cf3561472e98a6006bf75ddb457bed036dcce199369de7d94ef2c68e8467ee0604ee"
     "a2b3009479162a7891ba5c40cab17f49e1c438cb6eaea4f76ce23cce0e483ff0e96fa790ea15be67671814342d0a23f4"
     "a20262b6182e72f3a67cd289711503c85516a9ed225422f98b116f1ab080a80abd6f0216df88d8cfd67c139243be8dd7"
     "8502a7aaf6bc99d7da71bcdf627e7354",
     nullptr,
     "0f9b"},
    {"B.1.9", "bad padding (first byte 01): a 11-byte synthetic message",
     "9b2ec9c0c917c98f1ad3d0119aec6be51ae3106e9af1914d48600ab6a2c0c0c8ae02a2dc3039906ff3aac904af32ec79"
     "8fd65f3ad1afa2e69400e7c1de81f5728f3b3291f38263bc7a90a0563e43ce7a0d4ee9c0d8a716621ca5d3d081188769"
     "ce1b131af7d35b13dea99153579c86db31fe07d5a2c14d621b77854e48a8df41b5798563af489a291e417b6a334c6322"
     "2627376118c02c53b6e86310f728734ffc86ef9d7c8bf56c0c841b24b82b59f51aee4526ba1c4268506d301e4ebc498c"
     "6aebb6fd5258c876bf900bac8ca4d309dd522f6a6343599a8bc3760f422c10c72d0ad527ce4af1874124ace3d99bb74d"
     "b8d69d2528db22c3a37644640f95c05f",
     nullptr,
     "a1f8c9255c35cfba403ccc"},
    {"B.1.10", "bad padding (second byte 01): a 11-byte synthetic message",
     "782c2b59a21a511243820acedd567c136f6d3090c115232a82a5efb0b178285f55b5ec2d2bac96bf00d6592ea7cdc334"
     "1610c8fb07e527e5e2d20cfaf2c7f23e375431f45e998929a02f25fd95354c33838090bca838502259e92d86d568bc2c"
     "db132fab2a399593ca60a015dc2bb1afcd64fef8a3834e17e5358d822980dc446e845b3ab4702b1ee41fe5db716d9234"
     "8d5091c15d35a110555a35deb4650a5a1d2c98025d42d4544f8b32aa6a5e02dc02deaed9a7313b73b49b0d4772a3768b"
     "0ea0db5846ace6569cae677bf67fb0acf3c255dc01ec8400c963b6e49b1067728b4e563d7e1e1515664347b92ee64db7"
     "efb5452357a02fff7fcb7437abc2e579",
     nullptr,
     "e6d700309ca0ed62452254"},
    {"B.1.11", "bad padding (zero at padding byte 1): a 11-byte synthetic message",
     "0096136621faf36d5290b16bd26295de27f895d1faa51c800dafce73d001d60796cd4e2ac3fa2162131d859cd9da5a0c"
     "8a42281d9a63e5f353971b72e36b5722e4ac444d77f892a5443deb3dca49fa732fe855727196e23c26eeac55eeced826"
     "7a209ebc0f92f4656d64a6c13f7f7ce544ebeb0f668fe3a6c0f189e4bcd5ea12b73cf63e0c8350ee130dd62f01e5c97a"
     "1e13f52fde96a9a1bc9936ce734fdd61f27b18216f1d6de87f49cf4f2ea821fb8efd1f92cdad529baf7e31aff9bff407"
     "4f2cad2b4243dd15a711adcf7de900851fbd6bcb53dac399d7c880531d06f25f7002e1aaf1722765865d2c2b902c7736"
     "acd27bc6cbd3e38b560e2eecf7d4b576",
     nullptr,
     "ba27b1842e7c21c0e7ef6a"},
    {"B.1.12", "bad padding (zero at padding byte 8): a 11-byte synthetic message",
     "a7a340675a82c30e22219a55bc07cdf36d47d01834c1834f917f18b517419ce9de2a96460e745024436470ed85e94297"
     "b283537d52189c406a3f533cb405cc6a9dba46b482ce98b6e3dd52d8fce2237425617e38c11fbc46b61897ef200d01e4"
     "f25f5f6c4c5b38cd0de38ba11908b86595a8036a08a42a3d05b79600a97ac18ba368a08d6cf6ccb624f6e8002afc7559"
     "9fba4de3d4f3ba7d208391ebe8d21f8282b18e2c10869eb2702e68f9176b42b0ddc9d763f0c86ba0ff92c957aaeab76d"
     "9ab8da52ea297ec11d92d770146faa1b300e0f91ef969b53e7d2907ffc984e9a9c9d11fb7d6cba91972059b46506b035"
     "efec6575c46d7114a6b935864858445f",
     nullptr,
     "63cb0bf65fc8255dd29e17"},
    {"B.1.13", "bad padding (no separator): a 11-byte synthetic message",
     "3d1b97e7aa34eaf1f4fc171ceb11dcfffd9a46a5b6961205b10b302818c1fcc9f4ec78bf18ea0cee7e9fa5b16fb4c611"
     "463b368b3312ac11cf9c06b7cf72b54e284848a508d3f02328c62c2999d0fb60929f81783c7a256891bc2ff4d91df2af"
     "96a24fc5701a1823af939ce6dbdc510608e3d41eec172ad2d51b9fc61b4217c923cadcf5bac321355ef8be5e5f090cdc"
     "2bd0c697d9058247db3ad613fdce87d2955a6d1c948a5160f93da21f731d74137f5d1f53a1923adb513d2e6e1589d44c"
     "c079f4c6ddd471d38ac82d20d8b1d21f8d65f3b6907086809f4123e08d86fb38729585de026a485d8f0e703fd4772f66"
     "68febf67df947b82195fa3867e3a3065",
     nullptr,
     "6f09a0b62699337c497b0b"},
};

const Vector kB2[] = {
    {"B.2.2", "valid padding, message 11 bytes",
     "013300edbf0bb3571e59889f7ed76970bf6d57e1c89bbb6d1c3991d9df8e65ed54b556d928da7d768facb395bbcc81e9"
     "f8573b45cf8195dbd85d83a59281cddf4163aec11b53b4140053e3bd109f787a7c3cec31d535af1f50e0598d85d96d91"
     "ea01913d07097d25af99c67464ebf2bb396fb28a9233e56f31f7e105d71a23e9ef3b736d1e80e713d1691713df973347"
     "79552fc94b40dd733c7251bc522b673d3ec9354af3dd4ad44fa71c0662213a57ada1d75149697d0eb55c053aaed5ffd0"
     "b815832f454179519d3736fb4faf808416071db0d0f801aca8548311ee708c131f4be658b15f6b54256872c2903ac708"
     "bd43b017b073b5707bc84c2cd9da70e967",
     "lorem ipsum", nullptr},
    {"B.2.3", "valid padding, message 0 bytes",
     "00cc52e83755a4526fea5e62450450638430a84a5878fd12c2a571f33c55729cfab6e35c2e1703c452cff65731249460"
     "919aeb1b40084bdef573407851e48b3c72923e48d5c4f3e80990c462bc291a3e635515636ab9ebeb317ca0d75b04b80c"
     "17e2f4851f8929f72c9bea4ec4a6a1fbc5155837813567062d6b4b2a6b6e40be545d25da39b08c52f3543e2f2cdfa314"
     "832dcbf475fcbb8d3565a64bb09b55f922e6ec6cd8bb5203a11e2fa0c1b383674c4f0b63acd78f3690e3a16ad1b71f6c"
     "fe48c56533e2ae42b1393b2d156c2323272490a574ce4f14055249b6a34c3e08d4a417039450910ec34bd5f08eb06078"
     "f51bdd6e50334ee64c9695a5bde52938e3",
     "", nullptr},
    {"B.2.5", "bad padding (second byte 72, no separator): an empty synthetic message",
     "0128a1f7837e53b21ee37f0b4d08c76180305d5d854a1bcf3885471610646795f1e4c85ce7fce0f71ac3504598afdfc2"
     "6792dea8ac55c7da10f96d26236ae652b282459d679ec84847d523f07213e81d1c713fb159eded43112eab68b610e3f8"
     "71d9c0009fde783ad7bcdca5568f7a86a716be6b96219c34b061f68718abad7c947ed107097dc68341b865d73f2e857a"
     "345f5cf05c53bb2899d2895565009125c7b5fe1c35a73c03bb0f59e7faf381c784988bb71194307ee9a8ac122990fabb"
     "5cc1fd877aaa79039ac163d084c7ee1642aaf05befb9d7ed0e29558f11f0708c8e83f804f92fd41310a6fd21d91c3ceb"
     "88ceee3e424a3fcdda57fe3abb8b7bae7d",
     "", nullptr},
    {"B.2.6", "bad padding (second byte aa, no separator): a 246-byte synthetic message",
     "013a60aa202dedad2d9e78c0c99077ccc17b7d0533aeaf184dcb8c9a81ca4de5715ada598d59b926606dcb005935421f"
     "6ebfd32e62802f0e2de8df08f1ae00e4aced6ebf361a38df817c892309bd07c92c4f2f7be89f286f99711372e3dd959c"
     "cb0a150b28578f29040b39ecf989c26eb77a3480c2d4d363b9563a70f0a0789cc4300af1e600de39dae4a49335d35ac0"
     "156f5395ebebf35531c819c9cf498a97e67ee2299d84564444f7bcd51f9f08d6bac0872439ad57eb9a8134dc665add1f"
     "813d5031484c905a433c115bf889dc46ac672a8898fe235bf463b1b46345299b6f100b48fa954fc262ce58e83f95955b"
     "321c1e86bbfe398b588dd5c75c2c68532b",
     nullptr,
     "5c5345594cec69769af002af6513415a0848a4d45601c44b9e84b6e0a42c1356cfc20604df8d334de53fafc6de2125f2"
     "eae2ec9864b0b0d03ef1539017ecf312460cbb3c7c49fe124cf1becce8903f227ec85daaae73fe256acdf39f47b46c14"
     "fbd289d7f9b9e22ee0e7c5d77cbbf22a2f9fbf4e26c5999a7b8335f6478912edfb77a373a82dabbc8233e585ea5ddfef"
     "3d0d872a4a007018005014a8873495951210a4b90209b8286466030e56b1050ed600c777b4dbdb64f86516ef269a3ba7"
     "7285f9be9afebcaad35226f7b3296932baf8dbfea3d77eb6520da203ffc0672232761e2a8a05186181b8dd1f77f069f7"
     "af8de118aa18"},
    {"B.2.8", "bad padding (second byte fe, no separator): a 52-byte synthetic message",
     "011644d88f2955389b6d215fc3acd733265d82348fa15178d99e38fd2842030d4e31d1ab15b0f00a80add1a9bfe112f9"
     "c42e827c487193c360dc5888c8c42d5459b1f2c1952dca679ded08f190b6a78bbb6ea00438ebb8b03dc56e45cb36bee4"
     "9a385c71fbf9bbcceda7b130ad6cee2106eff34dd224fba8e9990edf893ae52b0910cdadf44bf29812a98bb9dc163881"
     "5112950bb9e7bad11c610d6406dd2d1c36cddd639e024205a1a2bd82ec97059ef61b5226e3246ca672962194d1222cc0"
     "32003fe34bf5ca0227f1c86439dcfba5203cf57099884276b0fbbf9b9cec93392673d8290a1a3452f3791c3881c9be6a"
     "1eef23841a8a5fde255cbbd3c4fc33827c",
     nullptr,
     "9b9b496e44544456e70d9be86bd398dae00c7c05d6ea76c45d12f050b1c61c219b2fe47749451e44d96d11916f6ec4cf"
     "9eea67cb"},
    {"B.2.13", "bad padding (no separator): a 11-byte synthetic message",
     "01541f0012b2dfd2d2b91cd22570dd577af0d27c29baa4d7a3cec2ddf8cdb957257d8d436455d331e35730d1df7058cb"
     "b01649beb236154858843e2e14ae54fd53496883163b8cb30fea540778726453204a846b04535878bebe9e60f8783b77"
     "e5dfd4d346cd688aa2ee9e0ba9ac2bfd16005de994ea4a9c40adbafcf79dac4859480a8e6e6849077b07f5e3dce8b97f"
     "678fc4b1da7e72004cfae36f01cb23f69180a46e3b9488f3b595e83510c9c4b298c953971d82610562976271e756f97e"
     "f317b440271be9847178a482098447516ea29bd599592dbf22e35c91f8e2155bd2f6289bac31c4c608b80bc208608a17"
     "cc45f7cff774549782882cf72baf0feb2f",
     nullptr,
     "a4e88815652839f2482a8f"},
};

const Vector kB4[] = {
    {"B.4.2", "valid padding, message 11 bytes",
     "041f9bbe8372454ffadce0befc99ad4bd01cdbe016dffb5d0d84ee879e7ff64a25dced4d504f48a14b700a34a1c148e4"
     "b4028eecc9158cf5e3469daad1dddb2157b176dcf5716627aebd6072b965cfb67b42b149e88c0a8dc54703ec244637b3"
     "039b80c06d1d4968aeb838f3afcd3dc675fc90736cf0f0adaba182e27a19a7294cef500ed1fcca324c3ffa6ff02bd749"
     "a4a66f18da138d53ff549c4e6b3fff0b9ee2029ea8293fcd72a03e1dee4445629979be7fd65e5dbe5e6e77ec2aa87879"
     "a01c3e2502af0cc4bc04b637d17b175d92b4dcd70cfe83b6c1d4f91c61e911b81cb6d60b99146f17937d127054521b13"
     "2acb9ca95cbc6f80cd926d709bd7219d48ce7378e4416328a49be6c773dbdeb00ce23dc91f25f4807526cf4de8dd3fbb"
     "13ae1011eefe3a2aad9982f6c9268883b4633057d119c97c1178aae671859af0a488ab7b841c6583572d1261137a4292"
     "ba1c1caa4baf808be42075940d7e612efa56ac9a7ffff3e7dbf10b6193ea14c4841fc5c43e031a69ddbd79118ccd92b1"
     "6a6ef66c7404c001ebc6402301a90248eb6562b7a2f549f52c058109dd5f2617877719ad13e81d19425a4cd5cf9e56e8"
     "538f5cb09b6f7ab646910b8c2ff6bf8cf17abdb4758bfba80df9f643950a6d4a8f60c6872700e5919d36503486667e43"
     "28a6b74b774eb483a9922706baa7f456644781cc0d78add9024e28da2d5e9d81",
     "lorem ipsum", nullptr},
    {"B.4.5", "bad padding (first byte 70, second byte 15, no separator): an empty synthetic message",
     "577d6457be536bf1fac80993f5f76e797607227a42e325deb246bf8bf475e1d1819c5dfb6d288eb131ead32238b7a879"
     "6b76517e78f979b34f5c2272ae4d40e60b265ad3c897ecc4d26587c8ac32db431ed8d2996d64edadf7719baa4b4292b3"
     "4e042f26693c90f04addffe8ba0e3c3f1cbabafbfd2e3a6bcd9203e9a1cebb1c968caa73430556ea5743ecfa49edab65"
     "6bfeadf7c114105f3e222fe60983d55bc48cb738c5a307353281c573be6ffc69630185ae6de695c35fbf8cbc24b5590f"
     "5e511adb68a38a37bc6dc74a5052e5063f20c30d2f331dafb07797f9e577cb3d18280f318fe2a6116cef6846b7a83846"
     "63a5aaac32693b9b159f506d8812f76a1ee405abb1e5e439a0aee4d1b51f435ea2d043fe4f4ef1a6ccf069201ceb7978"
     "139eed579b01bcb5b4e525cce6b179f72fcb6aabbd916538d580ce3e1ed57a4d3433efd826fffd75d8fdc43de69afab6"
     "6dc32a4f4f81b14c0650a097709265e26b57f233008013b275e7b58817b02f4473a99bb48ec7d9562bc78d1f032340d3"
     "083b762f19fb204be7f26d7ceef6c7ff712479a6cdf18123586b87c2751493f1bb2585626b1aa486a2ec50a197728cf2"
     "4d3968e6d9b9bdfedfda91db292abdeffda2334c85fd359e65e7e662193b6feb5df6d70c7727880150c785d809ba3ffc"
     "e3b2701aad313da60cd4affe85e85d32c4fe271b0b107e529a22cffbb01871c8",
     "", nullptr},
    {"B.4.6", "bad padding (first byte 0d, second byte fe, no separator): a 501-byte synthetic message",
     "09be60b83b63aa1f2398c6ccd7ba602917dfffbc1a2ee01094221ef7140ba8b364b4979b7d068be084d34b70309bc481"
     "03d9e7dc76c042d1063ce6d7239d3542ad511da821c6ad53dcaefdd9e950de889d1d462a5a8bcdda4e2ac579c0dc12ab"
     "684a16a3c4075ec5062db79f95e5b436a8927fe7e3a795152cb6407faedf088ae4531cca8482348a3c44267b1ea46fa3"
     "bfcb4754be735e434c4ef17b84f6fd6c184e8c4adf91fbf00be6a6ff86351e6fd76c8929ef7fae14113370cbe6ba0181"
     "ef6970855a2cfde5b366a44bf0575e7e5d5354676b5429a6916bb7065c23417442150f8fa23a1ae284a27008980691eb"
     "886b693adb1bf4d38faae5037007900e47124a695c67b51fe9e1e66153cb32fae0e7370151024fe49b2781e50ac5a31d"
     "1c7de58923c0360ae61f4a3bcfd7839a104c23d95ddeb76bcaf2b1956f81c355aeb11a46b48762baf072318727e56d4e"
     "682a3b71898d3725b00a334c94cb1adccea81525b28c2a1c2b82950b93786ea5b893ffe6dc0932a95b064c838d6f04ea"
     "a8334f92b0dec8c7bbc1a5900d7e7680c24e66867ec2b837e30be18083c6fb2bfc67ace569989171f05d312ce97307b4"
     "77379837351e9199528e88671a93e55868a577fb9eae76a2cbf3cc62c6aaabbee88cf6638012554ba92772e923fbe531"
     "fe8aa2036ee7230954ffa24e802a399f531c8cad0a78262442c92089f06b06c7",
     nullptr,
     "7a57bf4c557abe6bdd45ed471260ec2749e66710b707ff4e4761738dbe2cdc19267aec5070d2472f53ba0c86e8b60756"
     "6c871b6c3de28772aa197e369fad293f8218fd32178ecebe60cc7926e093bbdd629ed6a6a29b4a905eefe443f3621d89"
     "582a41bac7d4f6b77f9c935681e892d17b2261151a4b4244506cfc49ba578b975840d88f637321d20c25950640d2b43a"
     "a660611cc07d016534324b84bada224485488af08a8d54af1698babccd76b87218b074987273dd3746eacd2dee8068d0"
     "c4f5e8f219689d55deea3cccb86e52599cebf3777cab3bfc2da5ae31c90199739ba5d5e01816f8f8a21c7f6b6acdada8"
     "a2b2ab4f32502d6296a365267a76837878d204a1b8cc5299708e9eb1b44d9663c75c9b8c17dd8f1a9f04109087e22329"
     "769fcc5fa65506a0f6294d8bf4a362559c497a36b2a5c55ee12213bd9c42a2dc0f6f35176e194641dcfbb334b13924e6"
     "883b4f68c88d016ecdc67bafdeff4b2e4122777726e06b0e37642d42090be622288ce11a8af4261b5d186092002e7d71"
     "cb43fc2182e4d341c610e6860904cbc526e74292aa1df81dd08d87b51a953c0be511346d604aa3a8e87f943db3e951a6"
     "9cc4dcd1b996d3d8ab595aa9b7ca591ae2e9b49798a9b98aa1c1c233f938937c88ad675e6297f36ba0fb161a8b42e9ee"
     "9a98d8b781165ed75d30cc55d88e6df5c688c32390"},
    {"B.4.13", "bad padding (no separator): a 10-byte synthetic message",
     "44c5b648e960aed2ad38497b6af118577a7978db288c0019cb6f8818578021ca0d782c4e87bd6c3a73ef89e379311f0d"
     "449410c336bffdc9d970f995e7b5978910c230b1ef11c06cc5de6ee79ca2f85f6f14e5c42cbb8269d40c032b91783755"
     "fbfa7b87f16790bfea91933c67d2499a3d815cb70142285449757e606a438752b803b0928c28dab4fd21125e5b79af04"
     "fe912fb444d32039e9e0e10210fbe0174f43e2833ab862e4370b007025a919cf7b9c11241cf95ab10a9baa44a7ce7fa6"
     "e802c5b8e5c466dba52704fc2325317526f36d25842e130fcdbbc3c631a1e4c67d23ffcb2218065863c178526616e842"
     "9916dff9101baf71857901bdaf305d269c944994f9cf0e02a5499432324b90a62c3c78bd7a7821420a11c43d0a80ee39"
     "68ab8a363d6e6476f5424ae98bd59352aa9842e8f42cb0a34da68eac9dd16cf704573007efc4b3fc97161c342c836ff7"
     "81c331c306f61052d3877ab190e307f4f8d63c3bc8f6ab9a6920f9d1b9be482d3096b0b02447f53b0f974693e2a49b73"
     "3684d8e33d7dfbb60d3b1aae02c222c395209b1e2647e7fcbf3c44cdee9c73329ce9ed255e011847d6d2e119d252d57c"
     "72572b2a309472f059cdae1f24e9cf1ffddebc70b8b252229c7c0adfa763bda2243840bc9a553b6a4ea7737c0a002261"
     "b36e198fca4314f659ca1071aceb2668079d663e4ed40e15e10d764aa8cb0c68",
     nullptr,
     "750d91268328712552cd"},
};

std::string from_hex(const char* hex) {
    auto nibble = [](char c) { return c <= '9' ? c - '0' : c - 'a' + 10; };
    std::string out;
    for (const char* p = hex; p[0] && p[1]; p += 2) out += static_cast<char>(nibble(p[0]) << 4 | nibble(p[1]));
    return out;
}

std::string expected(const Vector& v) { return v.text ? std::string(v.text) : from_hex(v.hex); }

std::string b64(const char* hex) { return base64_encode(from_hex(hex)); }

template <std::size_t N>
void check_vectors(const char* pem, const Vector (&vectors)[N]) {
    const PrivateKey key = PrivateKey::parse(pem);
    for (const Vector& v : vectors) {
        CAPTURE(v.id);
        CAPTURE(v.what);
        REQUIRE(from_hex(v.ciphertext).size() == key.public_key().modulus_bytes());
        std::string got;
        REQUIRE_NOTHROW(got = decrypt_pkcs1v15_implicit(key, b64(v.ciphertext)));
        CHECK(got == expected(v));
        // The strict decoder agrees on which blocks are well padded: a valid one gives the same
        // message, a bad one is the exception that implicit rejection does away with.
        if (std::string(v.what).rfind("valid", 0) == 0) {
            CHECK(decrypt(key, b64(v.ciphertext), Padding::pkcs1v15) == expected(v));
        } else {
            CHECK_THROWS_AS(decrypt(key, b64(v.ciphertext), Padding::pkcs1v15), Error);
        }
    }
}

// base64 of EM^e mod n for the project's 2048-bit test key (EM k = 256 bytes, below n).
std::string raw_encrypt(const std::string& em) {
    const PublicKey pub = PublicKey::parse(test_keys::kPublic2048);
    REQUIRE(em.size() == pub.modulus_bytes());
    detail::MontgomeryModulus mod(detail::KeyAccess::of(pub).n);
    return base64_encode(mod.power(em, detail::KeyAccess::of(pub).e, pub.modulus_bytes()));
}

}  // namespace

TEST_CASE("PKCS#1 v1.5 implicit rejection: draft-irtf-cfrg-rsa-guidance B.1, 2048-bit key") {
    check_vectors(kDraftKey2048, kB1);
}

TEST_CASE("PKCS#1 v1.5 implicit rejection: draft-irtf-cfrg-rsa-guidance B.2, 2049-bit key") {
    check_vectors(kDraftKey2049, kB2);
}

TEST_CASE("PKCS#1 v1.5 implicit rejection: draft-irtf-cfrg-rsa-guidance B.4, 4096-bit key") {
    check_vectors(kDraftKey4096, kB4);
}

TEST_CASE("PKCS#1 v1.5 implicit rejection: each block of a multi-block ciphertext is rejected on its own") {
    const PrivateKey key = PrivateKey::parse(kDraftKey2048);
    // B.1.2 (valid), B.1.8 (bad: 2 bytes), B.1.3 (valid, empty), B.1.6 (bad: 245 bytes), B.1.5 (bad: empty).
    const Vector* order[] = {&kB1[0], &kB1[6], &kB1[1], &kB1[4], &kB1[3]};
    std::string ciphertext, want;
    for (const Vector* v : order) {
        ciphertext += from_hex(v->ciphertext);
        want += expected(*v);
    }
    CHECK(decrypt_pkcs1v15_implicit(key, base64_encode(ciphertext)) == want);
    // The strict decoder refuses the whole of it.
    CHECK_THROWS_AS(decrypt(key, base64_encode(ciphertext), Padding::pkcs1v15), Error);
}

TEST_CASE("PKCS#1 v1.5 implicit rejection: only public facts fail") {
    const PrivateKey key = PrivateKey::parse(kDraftKey2048);
    const std::string good = from_hex(kB1[0].ciphertext);
    const std::string n = detail::KeyAccess::of(key.public_key()).n;  // 256 bytes, big-endian
    REQUIRE(n.size() == 256);
    const std::vector<std::pair<const char*, std::string>> refused = {
        {"not base64", "not base64!"},
        {"empty", ""},
        {"one byte short", base64_encode(good.substr(1))},
        {"one byte over", base64_encode(good + '\0')},
        {"a block equal to n", base64_encode(n)},
        {"a block above n", base64_encode(std::string(256, '\xff'))},
        {"a good block, then one above n", base64_encode(good + std::string(256, '\xff'))},
    };
    for (const auto& item : refused) {
        CAPTURE(item.first);
        const std::string& input = item.second;  // (a structured binding cannot be captured in C++17)
        Error e = test::error_of([&] { decrypt_pkcs1v15_implicit(key, input); });
        CHECK(e.code() == ErrorCode::crypto);
        CHECK(std::string(e.what()) == "decryption failed");
    }
}

TEST_CASE("PKCS#1 v1.5 implicit rejection: a bad block is a message, the same every time") {
    const PrivateKey key = PrivateKey::parse(test_keys::kPrivate2048);
    // 00 02 || PS || 00 || M blocks made by hand (as test_crypto_pkcs1.cpp makes them).
    auto block = [](std::size_t ps_len, const std::string& message, bool separator = true) {
        std::string em("\x00\x02", 2);
        em += std::string(ps_len, '\x5a');
        if (separator) em += '\0';
        return em + message;
    };
    CHECK(decrypt_pkcs1v15_implicit(key, raw_encrypt(block(256 - 3 - 5, "hello"))) == "hello");
    const std::string longest(256 - 11, 'm');
    CHECK(decrypt_pkcs1v15_implicit(key, raw_encrypt(block(8, longest))) == longest);
    CHECK(decrypt_pkcs1v15_implicit(key, raw_encrypt(block(256 - 3, ""))).empty());
    std::vector<std::string> bad = {block(256 - 2, "", false), block(7, std::string(256 - 10, 'm')),
                                    block(0, std::string(256 - 3, 'm'))};
    std::string em = block(256 - 3 - 5, "hello");
    em[1] = '\x01';
    bad.push_back(em);
    em[0] = '\x01';
    bad.push_back(em);
    for (const std::string& b : bad) {
        const std::string c = raw_encrypt(b);
        std::string first;
        REQUIRE_NOTHROW(first = decrypt_pkcs1v15_implicit(key, c));
        CHECK(first.size() <= 256 - 11);
        CHECK(decrypt_pkcs1v15_implicit(key, c) == first);  // deterministic
        CHECK(first != "hello");
    }
}
