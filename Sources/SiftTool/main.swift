print("sift")
