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
    optionalAttrs = c: a: if c then a else { };
    optionalString = c: s: if c then s else "";
    inherit (builtins) concatMap;
    getExe = p: "${p.outPath}/bin/${p.meta.mainProgram}";
    types = {
      bool = mkType "bool" builtins.isBool;
      str = mkType "str" isString;
      path = mkType "path" (x: isPath x || (isString x && hasPrefix "/" x));
      package = mkType "package" (x: isAttrs x && x ? outPath);
      nullOr = t: mkType "null or ${t.name}" (x: x == null || t.check x);
      either = a: b: mkType "${a.name} or ${b.name}" (x: a.check x || b.check x);
      listOf = t: mkType "list of ${t.name}" (x: isList x && all t.check x);
      ints.positive = mkType "positive integer" (x: builtins.isInt x && x > 0);
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
  # Option groups nest (metrics.*, guestMenu.funnel.*): flatten to "metrics.address",
  # "guestMenu.funnel.enable" etc.
  flatten =
    attrs:
    builtins.concatMap (
      n:
      if isOption attrs.${n} || !(isAttrs attrs.${n}) then
        [ { name = n; value = attrs.${n}; } ]
      else
        map (s: s // { name = "${n}.${s.name}"; }) (flatten attrs.${n})
    ) (attrNames attrs);
  # The config the module sees: each declared option's setting, or its default.
  configOf =
    decls: settings:
    mapAttrs (n: o: if isOption o then settings.${n} or o.default else configOf o (settings.${n} or { })) decls;
  # A setting is a group only where the module declares one: a package is a set too.
  flattenSettings =
    decls: settings:
    builtins.concatMap (
      n:
      if decls ? ${n} && !(isOption decls.${n}) && isAttrs settings.${n} then
        map (s: s // { name = "${n}.${s.name}"; }) (flattenSettings decls.${n} settings.${n})
      else
        [ { name = n; value = settings.${n}; } ]
    ) (attrNames settings);

  eval =
    settings:
    let
      m = import ../module.nix {
        inherit lib pkgs utils;
        config.services.libations = configOf decls settings;
      };
      decls = m.options.services.libations;
      flatDecls = builtins.listToAttrs (flatten decls);
      flatSettings = flattenSettings decls settings;
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
  unlimited = eval {
    enable = true;
    memoryHigh = null;
    memoryMax = null;
    tasksMax = null;
  };
  smaller = eval {
    enable = true;
    memoryHigh = "128M";
    memoryMax = "192M";
    tasksMax = 64;
  };
  editing = eval {
    enable = true;
    recipesFile = "/run/agenix/libations-recipes";
    editing.enable = true;
    editing.editors = [ "alice@example.com" ];
  };
  funnel = eval {
    enable = true;
    guestMenu.funnel.enable = true;
  };
  funnelNotBool = eval {
    enable = true;
    guestMenu.funnel.enable = "yes";
  };
  editingSample = eval {
    enable = true;
    editing.enable = true;
  };
  editorsWithoutEditing = eval {
    enable = true;
    editing.editors = [ "alice@example.com" ];
  };
  relativeKey = eval {
    enable = true;
    tailscaleKeyFile = "key";
  };
  pathLiteralKey = eval {
    enable = true;
    tailscaleKeyFile = ./eval-module.nix;
  };

  # A configuration written for the Go original's module (jnsgruk/libations, nix/module.nix):
  # its options are enable, recipesFile, tailscaleKeyFile (a path, used as the unit's
  # EnvironmentFile, so the file holds TS_AUTHKEY=...) and package; its unit ran with
  # DynamicUser, StateDirectory = "libations" and XDG_CONFIG_HOME=/var/lib/libations/, so its
  # node lived in /var/lib/libations/tsnet-libations.
  goOptions = [
    "enable"
    "package"
    "recipesFile"
    "tailscaleKeyFile"
  ];
  goOriginal = eval {
    enable = true;
    package = pkgs.libations;
    recipesFile = "/var/lib/libations/recipes.json";
    tailscaleKeyFile = "/run/agenix/libations-tsauthkey";
  };
  # The same with path literals, which the original's `types.path` options also took.
  goOriginalLiterals = eval {
    enable = true;
    recipesFile = ./eval-module.nix;
    tailscaleKeyFile = /run/agenix/libations-tsauthkey;
  };
  gsc = goOriginal.unit.serviceConfig;
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
    "editing.editors"
    "editing.enable"
    "enable"
    "extraArgs"
    "guestMenu.funnel.enable"
    "hostname"
    "memoryHigh"
    "memoryMax"
    "metrics.address"
    "metrics.openFirewall"
    "package"
    "recipesFile"
    "recipesFileIsSecret"
    "tailscaleKeyFile"
    "tasksMax"
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
++ check "memory and task limits by default" (
  minimal.unit.serviceConfig.MemoryHigh == "384M"
  && minimal.unit.serviceConfig.MemoryMax == "512M"
  && minimal.unit.serviceConfig.TasksMax == 256
)
++ check "memory and task limits can be changed or lifted" (
  smaller.unit.serviceConfig.MemoryHigh == "128M"
  && smaller.unit.serviceConfig.MemoryMax == "192M"
  && smaller.unit.serviceConfig.TasksMax == 64
  && unlimited.typeErrors == [ ]
  && !(unlimited.unit.serviceConfig ? MemoryHigh)
  && !(unlimited.unit.serviceConfig ? MemoryMax)
  && !(unlimited.unit.serviceConfig ? TasksMax)
)
++ check "key file in the Nix store is refused" (storeKey.failedAssertions != [ ])
++ check "relative key path is refused" (relativeKey.failedAssertions != [ ])
++ check "a Nix path literal for the key is used as its path, never copied to the store" (
  pathLiteralKey.typeErrors == [ ] && pathLiteralKey.failedAssertions == [ ]
  && pathLiteralKey.creds == [ "auth-key:${toString ./eval-module.nix}" ]
)
++ check "Go original's module: every option it had exists here" (
  all (n: minimal.decls ? ${n}) goOptions
)
++ check "Go original's module: its configuration evaluates unchanged" (
  goOriginal.typeErrors == [ ] && goOriginal.failedAssertions == [ ] && goOriginal.unknown == [ ]
  && goOriginal.enabled
  && goOriginalLiterals.typeErrors == [ ] && goOriginalLiterals.failedAssertions == [ ]
)
++ check "Go original's module: same key file (TS_AUTHKEY=... is read) and recipes" (
  goOriginal.creds == [
    "auth-key:/run/agenix/libations-tsauthkey"
    "recipes.json:/var/lib/libations/recipes.json"
  ]
  && contains goOriginal.exec (q ''"--auth-key-file" "auth-key"'')
  && contains goOriginal.exec (q ''"--recipes-file" "recipes.json"'')
)
++ check "Go original's module: path literals work; the key is never copied to the store" (
  builtins.elem "auth-key:/run/agenix/libations-tsauthkey" goOriginalLiterals.creds
  && !(any (c: hasPrefix "auth-key:${builtins.storeDir}" c) goOriginalLiterals.creds)
)
++ check "Go original's module: same node name, same state directory, same dynamic user" (
  contains goOriginal.exec (q ''"--hostname" "libations"'')
  && contains goOriginal.exec (q "--state-dir %S/libations ")
  && gsc.StateDirectory == "libations" && gsc.DynamicUser
  && hasPrefix "${pkgs.libations.outPath}/bin/libations " goOriginal.exec
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
++ check "editing is off by default" (!(contains minimal.exec "--allow-edits"))
++ check "the guests' menu through Funnel is off by default" (
  !(contains minimal.exec "--guest-menu-funnel")
)
++ check "guestMenu.funnel.enable passes --guest-menu-funnel" (
  funnel.typeErrors == [ ] && funnel.unknown == [ ] && funnel.failedAssertions == [ ]
  && contains funnel.exec (q ''"--guest-menu-funnel"'')
)
++ check "guestMenu.funnel.enable takes only a bool" (funnelNotBool.typeErrors != [ ])
++ check "editing: the collection lives in the state directory, seeded from recipesFile" (
  editing.typeErrors == [ ] && editing.failedAssertions == [ ]
  && contains editing.exec (q "--recipes-file %S/libations/recipes.json ")
  && contains editing.exec (q ''"--allow-edits"'')
  && contains editing.exec (q ''"--seed-recipes-file" "recipes.json"'')
  && contains editing.exec (q ''"--editor" "alice@example.com"'')
  && !(contains editing.exec (q ''"--recipes-file" "recipes.json"''))
  && editing.creds == [ "recipes.json:/run/agenix/libations-recipes" ]
)
++ check "editing: a later deploy of recipesFile neither restarts nor reloads" (
  editing.unit.restartTriggers == [ ] && editing.unit.reloadTriggers == [ ]
)
++ check "editing without recipesFile seeds from the sample" (
  editingSample.failedAssertions == [ ]
  && contains editingSample.exec (q "--recipes-file %S/libations/recipes.json ")
  && !(contains editingSample.exec "--seed-recipes-file")
)
++ check "editing.editors without editing.enable is refused" (
  editorsWithoutEditing.failedAssertions != [ ]
)
