# Evaluates nixos/module.nix without nixpkgs: a tiny stand-in for the parts of `lib`,
# `pkgs` and `utils` it uses, then checks the systemd unit it produces for a few configs.
# Run by scripts/nix-check:  nix-instantiate --eval --strict nixos/check/eval-module.nix
# Evaluates to a list of failure messages (empty: all good). It checks our logic (option
# defaults, nulls, credentials, ExecStart), not the real NixOS module system.
let
  inherit (builtins)
    all
    any
    attrNames
    concatStringsSep
    filter
    isAttrs
    isList
    isPath
    isString
    mapAttrs
    stringLength
    substring
    ;

  hasPrefix = p: s: substring 0 (stringLength p) s == p;
  mkType = name: check: { inherit name check; };

  lib = {
    inherit hasPrefix;
    mkOption = o: o // { _type = "option"; };
    mkEnableOption = d: {
      _type = "option";
      type = lib.types.bool;
      default = false;
      description = "Whether to enable ${d}.";
    };
    literalExpression = text: {
      _type = "literalExpression";
      inherit text;
    };
    mkIf = condition: content: {
      _type = "if";
      inherit condition content;
    };
    optional = c: x: if c then [ x ] else [ ];
    toInt = s: builtins.fromJSON s;
    optionals = c: xs: if c then xs else [ ];
    getExe = p: "${p.outPath}/bin/${p.meta.mainProgram}";
    types = {
      bool = mkType "bool" builtins.isBool;
      str = mkType "str" isString;
      path = mkType "path" (x: isPath x || (isString x && hasPrefix "/" x));
      package = mkType "package" (x: isAttrs x && x ? outPath);
      nullOr = t: mkType "null or ${t.name}" (x: x == null || t.check x);
      listOf = t: mkType "list of ${t.name}" (x: isList x && all t.check x);
    };
  };

  # nixpkgs' utils.escapeSystemdExecArgs: JSON-quote each argument, double % and $.
  utils.escapeSystemdExecArgs =
    args:
    concatStringsSep " " (
      map (a: builtins.replaceStrings [ "%" "$" ] [ "%%" "$$" ] (builtins.toJSON "${a}")) args
    );

  pkgs.coreutils = {
    outPath = "/nix/store/00000000000000000000000000000000-coreutils";
  };
  pkgs.libations = {
    outPath = "/nix/store/00000000000000000000000000000000-libations-0";
    meta.mainProgram = "libations";
  };

  isOption = o: (o._type or null) == "option";
  # Option groups (metrics.*) are one level deep: flatten to "metrics.address" etc.
  flatten =
    attrs:
    builtins.concatMap (
      n:
      if isOption attrs.${n} || !(isAttrs attrs.${n}) then
        [ { name = n; value = attrs.${n}; } ]
      else
        map (s: {
          name = "${n}.${s}";
          value = attrs.${n}.${s};
        }) (attrNames attrs.${n})
    ) (attrNames attrs);

  eval =
    settings:
    let
      m = import ../module.nix {
        inherit lib pkgs utils;
        config.services.libations = mapAttrs (
          n: o:
          if isOption o then
            settings.${n} or o.default
          else
            mapAttrs (s: so: (settings.${n} or { }).${s} or so.default) o
        ) decls;
      };
      decls = m.options.services.libations;
      flatDecls = builtins.listToAttrs (flatten decls);
      flatSettings = flatten settings;
      typeErrors = map (s: "option ${s.name}: ${builtins.toJSON s.value} is not a ${flatDecls.${s.name}.type.name}") (
        filter (s: flatDecls ? ${s.name} && !(flatDecls.${s.name}.type.check s.value)) flatSettings
      );
      unknown = map (s: s.name) (filter (s: !(flatDecls ? ${s.name})) flatSettings);
      cfg = m.config.content;
      svc = cfg.systemd.services.libations;
    in
    {
      inherit decls flatDecls typeErrors unknown;
      enabled = m.config.condition;
      failedAssertions = map (a: a.message) (filter (a: !a.assertion) cfg.assertions);
      exec = svc.serviceConfig.ExecStart;
      creds = svc.serviceConfig.LoadCredential;
      firewall = cfg.networking.firewall.allowedTCPPorts;
      unit = svc;
    };

  contains = s: sub: builtins.match ".*${sub}.*" s != null;
  # Brackets as bracket expressions: POSIX leaves `\]` undefined and Nix refuses it.
  q = s: builtins.replaceStrings [ "." "+" "*" "?" "[" "]" "(" ")" "$" "^" "|" ] [ "\\." "\\+" "\\*" "\\?" "[[]" "[]]" "\\(" "\\)" "\\$" "\\^" "\\|" ] s;
  check = name: ok: if ok then [ ] else [ name ];

  minimal = eval { enable = true; };
  full = eval {
    enable = true;
    recipesFile = "/run/agenix/libations-recipes";
    tailscaleKeyFile = "/run/agenix/libations-tailscale-key";
    hostname = "bar";
    controlUrl = "https://headscale.example.org";
    extraArgs = [ "--ephemeral" ];
  };
  plainRecipes = eval {
    enable = true;
    recipesFile = "/nix/store/00000000000000000000000000000000-bar.json";
    recipesFileIsSecret = false;
  };
  storeKey = eval {
    enable = true;
    tailscaleKeyFile = "/nix/store/00000000000000000000000000000000-key";
  };
  relativeKey = eval {
    enable = true;
    tailscaleKeyFile = "key";
  };
  pathLiteralKey = eval {
    enable = true;
    tailscaleKeyFile = ./eval-module.nix;
  };
  metricsLocal = eval {
    enable = true;
    metrics.address = "127.0.0.1:9090";
  };
  metricsOpen = eval {
    enable = true;
    metrics = {
      address = "[::]:9464";
      openFirewall = true;
    };
  };
  metricsHostName = eval {
    enable = true;
    metrics.address = "localhost:9090";
  };
  firewallWithoutAddress = eval {
    enable = true;
    metrics.openFirewall = true;
  };
  sc = full.unit.serviceConfig;
in
check "every option has a type, a default and a description" (
  all (o: o ? type && o ? default && o ? description) (builtins.attrValues minimal.flatDecls)
)
++ check "options are exactly the documented set" (
  attrNames minimal.flatDecls == [
    "controlUrl"
    "enable"
    "extraArgs"
    "hostname"
    "metrics.address"
    "metrics.openFirewall"
    "package"
    "recipesFile"
    "recipesFileIsSecret"
    "tailscaleKeyFile"
  ]
)
++ check "disabled by default" (!(eval { }).enabled)
++ check "all-defaults config: no type errors or failed assertions" (
  minimal.typeErrors == [ ] && minimal.failedAssertions == [ ] && minimal.unknown == [ ]
)
++ check "all-defaults config: no credentials" (minimal.creds == [ ])
++ check "all-defaults config: no --recipes-file/--auth-key-file/--control-url/--metrics-addr" (
  !(any (contains minimal.exec) [
    "--recipes-file"
    "--auth-key-file"
    "--control-url"
    "--metrics-addr"
  ])
)
++ check "all-defaults config: no firewall port" (minimal.firewall == [ ])
++ check "state dir passed as %S/libations" (contains minimal.exec (q "--state-dir %S/libations "))
++ check "never --local" (!(contains minimal.exec "--local") && !(contains full.exec "--local"))
++ check "JSON logs" (contains minimal.exec (q ''"--log-format" "json"''))
++ check "full config: no type errors or failed assertions" (
  full.typeErrors == [ ] && full.failedAssertions == [ ]
)
++ check "full config: credentials auth-key and recipes.json" (
  full.creds == [
    "auth-key:/run/agenix/libations-tailscale-key"
    "recipes.json:/run/agenix/libations-recipes"
  ]
)
++ check "full config: relative credential names on the command line" (
  contains full.exec (q ''"--auth-key-file" "auth-key"'')
  && contains full.exec (q ''"--recipes-file" "recipes.json"'')
)
++ check "full config: hostname, control URL, extra args" (
  contains full.exec (q ''"--hostname" "bar"'')
  && contains full.exec (q ''"--control-url" "https://headscale.example.org"'')
  && contains full.exec (q ''"--ephemeral"'')
)
++ check "the secret's path never appears in ExecStart" (!(contains full.exec "agenix"))
++ check "restartTriggers follow the recipes file" (
  full.unit.restartTriggers == [ "/run/agenix/libations-recipes" ] && minimal.unit.restartTriggers == [ ]
  && full.unit.reloadTriggers == [ ]
)
++ check "ExecReload sends SIGHUP" (contains sc.ExecReload (q "/bin/kill -HUP $MAINPID"))
++ check "non-secret recipes: read in place, reload instead of restart" (
  plainRecipes.typeErrors == [ ] && plainRecipes.failedAssertions == [ ]
  && plainRecipes.creds == [ ]
  && contains plainRecipes.exec (q ''"--recipes-file" "/nix/store/00000000000000000000000000000000-bar.json"'')
  && plainRecipes.unit.reloadTriggers == [ "/nix/store/00000000000000000000000000000000-bar.json" ]
  && plainRecipes.unit.restartTriggers == [ ]
)
++ check "network-online ordering" (
  full.unit.wants == [ "network-online.target" ] && full.unit.after == [ "network-online.target" ]
)
++ check "sandbox basics" (
  sc.DynamicUser && sc.StateDirectory == "libations" && sc.StateDirectoryMode == "0700"
  && sc.Restart == "always" && sc ? RestartSec && sc.UMask == "0077"
  && sc.CapabilityBoundingSet == "" && sc.ProtectSystem == "strict"
)
++ check "key file in the Nix store is refused" (storeKey.failedAssertions != [ ])
++ check "relative key path is refused" (relativeKey.failedAssertions != [ ])
++ check "a Nix path literal for the key is a type error (it would be copied to the store)" (
  pathLiteralKey.typeErrors != [ ]
)
++ check "metrics.address: --metrics-addr on the command line, firewall closed" (
  metricsLocal.typeErrors == [ ] && metricsLocal.failedAssertions == [ ]
  && contains metricsLocal.exec (q ''"--metrics-addr" "127.0.0.1:9090"'')
  && metricsLocal.firewall == [ ]
)
++ check "metrics.openFirewall: the address's port is opened" (
  metricsOpen.typeErrors == [ ] && metricsOpen.failedAssertions == [ ]
  && contains metricsOpen.exec (q ''"--metrics-addr" "[::]:9464"'')
  && metricsOpen.firewall == [ 9464 ]
)
++ check "metrics.address with a host name is refused (the binary takes an IP)" (
  metricsHostName.failedAssertions != [ ]
)
++ check "metrics.openFirewall without metrics.address is refused" (
  firewallWithoutAddress.failedAssertions != [ ] && firewallWithoutAddress.firewall == [ ]
)
