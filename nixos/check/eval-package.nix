# Evaluates nixos/package.nix without nixpkgs (stand-ins for lib, stdenv, rustPlatform and
# the libtailscale derivation): reads the real Cargo.toml and Cargo.lock, checks that
# Cargo.lock pins the libtailscale-sys version libtailscale.nix builds, and renders the cargo
# `links` override. Run by scripts/nix-check; evaluates to a list of failures ([ ] = good).
let
  inherit (builtins) concatStringsSep filter all;
  lib = {
    inherit all;
    assertMsg = ok: msg: if ok then true else throw msg;
    concatMapStringsSep = sep: f: xs: concatStringsSep sep (map f xs);
    optionalAttrs = c: a: if c then a else { };
    fileset = {
      unions = xs: xs;
      toSource = { root, fileset }: { inherit root fileset; };
    };
    licenses.mit = "mit";
  };
  # The version and link libraries libtailscale.nix declares, read without building it.
  libtailscaleVersion =
    let m = builtins.match ''.*version = "([^"]+)";.*'' (builtins.readFile ../libtailscale.nix);
    in builtins.head m;
  libtailscale = {
    outPath = "/nix/store/00000000000000000000000000000000-libtailscale";
    version = libtailscaleVersion;
    passthru.linkLibs = [ "static=tailscale" "dylib=resolv" "dylib=pthread" ];
  };
  drv = import ../package.nix {
    inherit lib libtailscale;
    stdenv.hostPlatform.rust.rustcTarget = "x86_64-unknown-linux-gnu";
    rustPlatform.buildRustPackage = attrs: attrs;
    callPackage = _: _: throw "not used";
    sourceDateEpoch = 1700000000;
  };
  cargoToml = builtins.fromTOML (builtins.readFile ../../Cargo.toml);
  # Plain substring test (no regex).
  contains = s: sub: builtins.replaceStrings [ sub ] [ "" ] s != s;
  check = name: ok: if ok then [ ] else [ name ];
in
check "pname/version come from Cargo.toml" (
  drv.pname == cargoToml.package.name && drv.version == cargoToml.workspace.package.version
)
++ check "links override table for the target triple" (
  contains drv.postPatch ''[target."x86_64-unknown-linux-gnu".tailscale]''
)
++ check "link search path is the libtailscale archive" (
  contains drv.postPatch ''rustc-link-search = ["native=/nix/store/00000000000000000000000000000000-libtailscale/lib"]''
)
++ check "link libraries" (
  contains drv.postPatch ''rustc-link-lib = ["static=tailscale", "dylib=resolv", "dylib=pthread"]''
)
++ check "SOURCE_DATE_EPOCH passed to build.rs" (drv.env.SOURCE_DATE_EPOCH == "1700000000")
++ check "Cargo.lock is read by buildRustPackage" (drv.cargoLock.lockFile == ../../Cargo.lock)
