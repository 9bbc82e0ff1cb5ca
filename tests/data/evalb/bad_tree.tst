(S (N a) (V b))
(S (N a b) (V b))
