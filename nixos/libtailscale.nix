# Go's libtailscale (tsnet behind a C API) as a static c-archive, built from the Go sources
# that the libtailscale-sys crate ships in its libtailscale/ folder.
#
# The crate's own build.rs runs `go build`, which downloads Go modules: impossible in the
# Nix sandbox. So this derivation builds the same archive with buildGoModule (modules come
# from a fixed-output `go mod vendor`), and package.nix tells cargo to use it instead of
# running that build script (a `links = "tailscale"` override).
#
# Updating libtailscale-sys: set `version`, then both hashes:
#   hash:       unpack the .crate (it is a .tar.gz) and hash the unpacked folder:
#                 tar -xzf ~/.cargo/registry/cache/*/libtailscale-sys-$V.crate -C /tmp/x
#                 nix hash path --sri /tmp/x/libtailscale-sys-$V
#   vendorHash: in a copy of that folder's libtailscale/, run
#                 GOTOOLCHAIN=local GO111MODULE=on go mod vendor
#                 nix hash path --sri vendor
#               (buildGoModule's goModules output is exactly that vendor folder,
#               modules.txt included, hashed recursively as a NAR.)
# Or set a hash to lib.fakeHash, build, and copy the "got:" value.
{
  lib,
  buildGoModule,
  fetchCrate,
  go,
}:

let
  version = "0.2.2";
  # go.mod of libtailscale 0.2.2 (and of tailscale.com v1.94.1) says `go 1.25.5`, and
  # buildGoModule runs with GOTOOLCHAIN=local: an older Go cannot build it.
  minGo = "1.25.5";
in
assert lib.assertMsg (lib.versionAtLeast go.version minGo)
  "libtailscale ${version} needs Go >= ${minGo}, but this nixpkgs has Go ${go.version}: use a newer nixpkgs (nixos-unstable).";

buildGoModule {
  pname = "libtailscale";
  inherit version;

  src = fetchCrate {
    pname = "libtailscale-sys";
    inherit version;
    hash = "sha256-l7G8DOpXBEm96rclZa7qIivyBtay9gtFUOB8rIl0nQ8=";
  };
  modRoot = "libtailscale";
  vendorHash = "sha256-mELppbs3THcGgOH5oCKdmGrzUFuTEJgeEdQN0J0A9xc=";

  # The default buildPhase would `go install` every package of the module (examples,
  # test control server, ...). We want one c-archive of the root package (tailscale.go +
  # tailscale.c), like the crate's build.rs and the upstream Makefile's libtailscale.a.
  # GOFLAGS from buildGoModule (-mod=vendor -trimpath, maybe -buildmode=pie) still apply;
  # the -buildmode on the command line wins over the one in GOFLAGS.
  buildPhase = ''
    runHook preBuild
    if [ "$(go env CGO_ENABLED)" != 1 ]; then
      echo "libtailscale: cgo is off (CGO_ENABLED=$(go env CGO_ENABLED)); a c-archive needs cgo" >&2
      exit 1
    fi
    go build -buildmode=c-archive -ldflags=-buildid= -o libtailscale.a .
    runHook postBuild
  '';

  # tailscale_test.go needs a running control server; the archive is exercised by the
  # libations build that links it.
  doCheck = false;

  installPhase = ''
    runHook preInstall
    install -Dm644 libtailscale.a "$out/lib/libtailscale.a"
    install -Dm644 libtailscale.h "$out/include/libtailscale.h"
    install -Dm644 tailscale.h "$out/include/tailscale.h"
    runHook postInstall
  '';

  passthru = {
    # What a consumer must link besides the archive: the cgo LDFLAGS of Go's runtime/cgo
    # (-lpthread) and net package (-lresolv). With glibc >= 2.34 both live in libc and
    # the stubs cost nothing (rustc links with --as-needed).
    linkLibs = [
      "static=tailscale"
      "dylib=resolv"
      "dylib=pthread"
    ];
  };

  meta = {
    description = "Tailscale (tsnet) as a C library, static archive for libtailscale-sys";
    license = lib.licenses.bsd3;
    platforms = lib.platforms.linux;
  };
}
